import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from '../watch/store.js';
import { FrontEnd } from '../host/front-end.js';
import { FrontEndWebhooks } from '../webhooks/front-end-webhooks.js';
import type { WebhookHost } from '../webhooks/webhook-host.js';
import { CrudPassBody } from './crud-pass-body.js';
import type { FrameworkConfig } from './framework-config.js';
import { resolveFrameworkConfig, type ResolvedFrameworkConfig } from './resolve-config.js';

/**
 * The CRUD front end: watches a kind (and the kinds it owns or `watches` through a mapper), keeps the
 * latest object per key in a cache, and runs the object's resource set through a per-key work queue —
 * never two reconciles of one key at once, bursts coalesced, a change during a run gives exactly one more
 * run, errors retried with per-key backoff, finalizers, pause, resync, leader election, metrics, Events and
 * graceful shutdown. The engine is the shared `ControllerCore`; this class adds the resource sets.
 * See docs/framework.md and docs/guarantees.md.
 * @category Engine: Framework and ControllerCore
 */
export class Framework<Obj extends KubernetesObject = KubernetesObject> extends FrontEnd<
  Obj,
  ResolvedFrameworkConfig<Obj>
> {
  constructor(config: FrameworkConfig<Obj>) {
    const resolved = resolveFrameworkConfig(config);
    const webhooks = FrontEndWebhooks.fromOption(config.webhooks, 'new Framework(config)');
    super(resolved, new CrudPassBody<Obj>(resolved.router), 'framework', webhooks ? [webhooks] : []);
  }

  /** The webhook server of the `webhooks` option once started alone (undefined otherwise). */
  get webhooks(): WebhookHost | undefined {
    return FrontEndWebhooks.of(this.hostedServices);
  }

  /** Informer drop-in: remembers `newObj` and enqueues its key (level-triggered: the latest wins). */
  updateFunc(_oldObj: Obj | undefined, newObj: Obj): void {
    this.core.updateFunc(objectKey(newObj), newObj);
  }

  /** Informer drop-in: forgets `obj`; with finalizers off its delete path runs with this last state. */
  deleteFunc(obj: Obj): void {
    this.core.deleteFunc(objectKey(obj), obj);
  }
}
