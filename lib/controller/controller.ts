import type { KubernetesObject } from '@kubernetes/client-node';
import { FrontEnd } from '../host/front-end.js';
import { FrontEndWebhooks } from '../webhooks/front-end-webhooks.js';
import type { WebhookHost } from '../webhooks/webhook-host.js';
import type { ControllerConfig } from './controller-config.js';
import { ReconcilerPassBody } from './reconciler-pass-body.js';
import { resolveControllerConfig, type ResolvedControllerConfig } from './resolve-controller-config.js';

/**
 * The reconcile-function front end (controller-runtime's model): one function — or `{ reconcile,
 * cleanup }` — called with the latest object of a key whenever it, an owned object or a mapped source
 * changes. Runs on the same engine as `Framework` (`ControllerCore`): level-triggered, never two calls
 * for one key at once, bursts coalesced, retries with per-key backoff or a `retryPolicy`, finalizer
 * managed when `cleanup` is given. See docs/controller.md.
 * @category Controllers (reconcile functions)
 */
export class Controller<Obj extends KubernetesObject = KubernetesObject> extends FrontEnd<
  Obj,
  ResolvedControllerConfig<Obj>
> {
  constructor(config: ControllerConfig<Obj>) {
    const resolved = resolveControllerConfig(config);
    const webhooks = FrontEndWebhooks.fromOption(config.webhooks, 'new Controller(config)');
    super(
      resolved,
      new ReconcilerPassBody<Obj>(resolved.reconciler),
      'controller',
      webhooks ? [webhooks] : [],
    );
  }

  /** The webhook server of the `webhooks` option once started alone (undefined otherwise). */
  get webhooks(): WebhookHost | undefined {
    return FrontEndWebhooks.of(this.hostedServices);
  }
}
