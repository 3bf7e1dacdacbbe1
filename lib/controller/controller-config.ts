import type { KubernetesObject } from '@kubernetes/client-node';
import type { CoreConfig, FrameworkResource } from '../engine/core-config.js';
import type { WebhookHostOptions } from '../webhooks/webhook-host.js';
import type { ReconcileFunction, Reconciler } from './reconcile-types.js';

/**
 * Configuration of a {@link Controller}: `name`, `resource` and `reconciler` are required; every other
 * option is the engine's (see `CoreConfig`, same defaults as `Framework`).
 * @category Controllers (reconcile functions)
 */
export interface ControllerConfig<Obj extends KubernetesObject = KubernetesObject> extends CoreConfig<Obj> {
  /** The kind to reconcile (controller-runtime's `For`). Required. */
  resource: FrameworkResource;
  /** A reconcile function, or `{ reconcile, cleanup? }`. Required. */
  reconciler: Reconciler<Obj> | ReconcileFunction<Obj>;
  /**
   * Finalizer name, or false. Default `reconcilekit.io/<name>` when the reconciler has `cleanup`, else
   * false (no finalizer: a deletion calls `reconcile` once with `action: 'deleted'`).
   */
  finalizer?: string | false;
  /**
   * Serve admission and conversion webhooks when started alone (docs/webhooks.md): the same options as the
   * `Operator` option `webhooks` — the HTTPS webhook server starts before the controller, its certificates
   * are made (or read) and renewed, its configurations registered, and `/readyz` checks it. In an `Operator`,
   * give them to the Operator instead (it refuses a controller that has its own).
   */
  webhooks?: WebhookHostOptions;
}
