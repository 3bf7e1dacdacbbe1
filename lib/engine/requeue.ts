import { defineContextKey, type ContextKey } from '../context/context-key.js';
import type { ReconcileContext } from '../context/reconcile-context.js';

/**
 * Where a resource asks the engine to run the object again after a delay (ms).
 * @category Engine: Framework and ControllerCore
 */
export const requeueAfterKey: ContextKey<number> = defineContextKey<number>('reconcilekit.requeueAfter');

/**
 * Asks the engine to reconcile this object again after `delayMs` once the current pass succeeded
 * (polling external state, waiting for something to become ready). The shortest request of one pass
 * wins; an error in the same pass uses the error backoff instead. Counted as `result="requeue_after"`.
 * @category Engine: Framework and ControllerCore
 */
export function requeueAfter(ctx: ReconcileContext, delayMs: number): void {
  if (!Number.isFinite(delayMs) || delayMs < 0) return;
  const current = ctx.get(requeueAfterKey);
  if (current === undefined || delayMs < current) ctx.set(requeueAfterKey, delayMs);
}
