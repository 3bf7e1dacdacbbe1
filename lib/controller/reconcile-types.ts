import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileContext } from '../context/reconcile-context.js';
import type { Awaitable } from '../util/awaitable.js';

/**
 * Why a reconcile function is called.
 * @category Controllers (reconcile functions)
 */
export type ReconcileAction = 'created' | 'updated' | 'deleted' | 'resynced';

/** The {@link ReconcileAction} values by name. */
export const ReconcileAction = Object.freeze({
  Created: 'created',
  Updated: 'updated',
  Deleted: 'deleted',
  Resynced: 'resynced',
} as const);

/**
 * One call of a reconcile function.
 * @category Controllers (reconcile functions)
 */
export interface ReconcileRequest<Obj extends KubernetesObject = KubernetesObject> {
  /**
   * `deleted` while the object is being deleted or gone; `created` when this process has not reconciled
   * its UID before; `resynced` when its resourceVersion equals the last reconciled one (resync, requeue,
   * retry); else `updated`.
   */
  readonly action: ReconcileAction;
  /** The latest cached object (level-triggered), or its last known state when gone. Do not mutate it. */
  readonly object: Obj;
  /** Work-queue key: `namespace/name` (or `name` for cluster-scoped kinds). */
  readonly key: string;
  /**
   * What the previous call for this key handed on (`ReconcileResult.state`, `ReconcileError.state`);
   * kept only across failed or requeued calls, undefined after a call that returned neither.
   */
  readonly state: Readonly<Record<string, unknown>> | undefined;
  /** 0 on a fresh call; +1 per failed call in a row (reset by a success or a change of the object). */
  readonly attempt: number;
}

/**
 * What a reconcile function may return (or nothing: done).
 * @category Controllers (reconcile functions)
 */
export interface ReconcileResult {
  /** Run again after this delay (ms ≥ 0). A success: resets the backoff, does not count as a failure. */
  requeueAfterMs?: number;
  /** Handed to the next call for this key; replaces (never merges) the previous state. */
  state?: Record<string, unknown>;
}

/**
 * A reconcile function: brings the world in line with `req.object`. Throw to fail (retried).
 * @category Controllers (reconcile functions)
 */
export type ReconcileFunction<Obj extends KubernetesObject = KubernetesObject> = (
  ctx: ReconcileContext,
  req: ReconcileRequest<Obj>,
) => Awaitable<ReconcileResult | undefined | void>; // eslint-disable-line @typescript-eslint/no-invalid-void-type -- `return;` and no return are both "done"

/**
 * A reconciler object. With `cleanup`, the engine manages a finalizer: it is on the object before the
 * first `reconcile`, `cleanup` runs while the object is being deleted, and the finalizer goes only after
 * `cleanup` succeeded. Without it, a deletion calls `reconcile` once with `action: 'deleted'`.
 * @category Controllers (reconcile functions)
 */
export interface Reconciler<Obj extends KubernetesObject = KubernetesObject> {
  reconcile: ReconcileFunction<Obj>;
  cleanup?: ReconcileFunction<Obj>;
}
