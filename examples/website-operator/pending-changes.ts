import { defineContextKey, type ReconcileContext } from 'reconcilekit';

/**
 * Changes a resource decided not to make in this reconciliation (an update held back because
 * `updateAllowed` is not set). Resources record them; the status resource, which runs last, reports them
 * in the `Ready` condition. This is how information flows between resources through the context.
 */
const pendingChangesKey = defineContextKey<string[]>('website.pendingChanges');

/** Records a held-back change, in words a user reading the status understands. */
export function notePendingChange(ctx: ReconcileContext, description: string): void {
  const list = ctx.get(pendingChangesKey);
  if (list === undefined) ctx.set(pendingChangesKey, [description]);
  else list.push(description);
}

/** The changes recorded so far in this reconciliation (empty when none). */
export function pendingChanges(ctx: ReconcileContext): readonly string[] {
  return ctx.get(pendingChangesKey) ?? [];
}
