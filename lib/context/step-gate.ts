import { defineContextKey, type ContextKey } from './context-key.js';
import type { ReconcileContext } from './reconcile-context.js';

/**
 * A check run at every step boundary of a pass (before each resource and each CRUD step), after the
 * signal check: it throws to stop the pass. Leader election sets it so a replica whose lease may have
 * lapsed (renew deadline passed, e.g. after a pause) starts no further step.
 * @category Reconcile context and flags
 */
export const stepGateKey: ContextKey<() => void> = defineContextKey<() => void>('reconcilekit.stepGate');

/**
 * Throws when the pass must stop: its signal aborted, or the step gate refuses.
 * @category Reconcile context and flags
 */
export function checkStepGate(ctx: ReconcileContext): void {
  ctx.signal.throwIfAborted();
  ctx.get(stepGateKey)?.();
}
