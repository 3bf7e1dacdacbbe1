import { defineFlag, type Flag } from './flag.js';
import type { ReconcileContext } from './reconcile-context.js';

/**
 * Stops the remaining steps of the current CRUD resource and every remaining resource; the
 * reconciliation returns success. Installed fresh by processUpdate/processDelete on every call.
 * On the delete path it also keeps the finalizer, so the deletion is replayed.
 * @category Reconcile context and flags
 */
export const reconciliationCanceled: Flag = defineFlag('reconciliationCanceled');

/**
 * Stops the remaining steps of the current CRUD resource only; the next resource runs normally.
 * Installed fresh for every resource. Plain resources ignore it.
 * @category Reconcile context and flags
 */
export const resourceCanceled: Flag = defineFlag('resourceCanceled');

/**
 * Lets resources compute disruptive updates. Never set by the engine: the resource set's initCtx sets it.
 * @category Reconcile context and flags
 */
export const updateAllowed: Flag = defineFlag('updateAllowed');

/**
 * Message from an earlier resource to a later one that an update is needed (producer ordered first).
 * @category Reconcile context and flags
 */
export const updateNecessary: Flag = defineFlag('updateNecessary');

/**
 * Lets resources compute deletions of external state. Never set by the engine.
 * @category Reconcile context and flags
 */
export const deletionAllowed: Flag = defineFlag('deletionAllowed');

/**
 * Asks the engine to keep the finalizer after a successful delete path, so the deletion is replayed.
 * @category Reconcile context and flags
 */
export const finalizersKept: Flag = defineFlag('finalizersKept');

/**
 * The six built-in flags, in the order above.
 * @category Reconcile context and flags
 */
export const BUILTIN_FLAGS: readonly Flag[] = Object.freeze([
  reconciliationCanceled,
  resourceCanceled,
  updateAllowed,
  updateNecessary,
  deletionAllowed,
  finalizersKept,
]);

/**
 * Installs every flag in `flags` fresh (default: all built-in flags); the engine calls it per reconciliation.
 * @category Reconcile context and flags
 */
export function installFlags(ctx: ReconcileContext, flags: readonly Flag[] = BUILTIN_FLAGS): void {
  for (const flag of flags) flag.install(ctx);
}
