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
    .sort((a, b) => (identifier(a) < identifier(b) ? -1 : identifier(a) > identifier(b) ? 1 : 0))
    .flatMap((manager) => [
      `conflicts with ${manager}:`,
      ...(byManager.get(manager) ?? []).map((f) => `- ${f}`),
    ]);
  return header + lines.join('\n');
}

/**
 * The manager identifier kube sorts conflict groups by (the JSON of its managedFields entry: manager,
 * operation, apiVersion for updates, subresource), rebuilt from the printed `"m" with subresource "s" using v`.
 */
function identifier(printed: string): string {
  const m = /^("(?:[^"\\]|\\.)*")(?: with subresource ("(?:[^"\\]|\\.)*"))?(?: using (\S+))?$/.exec(printed);
  if (m === null) return printed;
  const entry: Record<string, string> = { manager: JSON.parse(m[1] ?? '""') as string };
  entry.operation = m[3] === undefined ? 'Apply' : 'Update';
  if (m[3] !== undefined) entry.apiVersion = m[3];
  if (m[2] !== undefined) entry.subresource = JSON.parse(m[2]) as string;
  return JSON.stringify(entry);
}
