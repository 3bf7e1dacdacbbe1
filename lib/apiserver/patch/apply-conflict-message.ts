import type { FieldCause } from '../field-cause.js';

/**
 * The message of the 409 Conflict Status for server-side apply conflicts (causes from serverSideApply):
 * `Apply failed with 1 conflict: conflict with "m" using v1: .spec.x`, or for several, grouped by manager:
 * `Apply failed with 2 conflicts: conflicts with "m" using v1:\n- .spec.a\n- .spec.b`.
 */
export function formatApplyConflictMessage(conflicts: readonly FieldCause[]): string {
  const count = conflicts.length;
  const header = `Apply failed with ${count} conflict${count === 1 ? '' : 's'}: `;
  const only = conflicts[0];
  if (count === 1 && only !== undefined) return `${header}${only.message}: ${only.field}`;
  const byManager = new Map<string, string[]>();
  for (const cause of conflicts) {
    const manager = cause.message.replace(/^conflict with /, '');
    byManager.set(manager, [...(byManager.get(manager) ?? []), cause.field]);
  }
  const lines = [...byManager.keys()]
    .sort()
    .flatMap((manager) => [
      `conflicts with ${manager}:`,
      ...(byManager.get(manager) ?? []).map((f) => `- ${f}`),
    ]);
  return header + lines.join('\n');
}
