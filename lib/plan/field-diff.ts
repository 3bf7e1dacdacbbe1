/**
 * One field that differs between two JSON values: its dotted path (`spec.replicas`, `data.message`,
 * `spec.tags[1]`), the value before (absent when added) and after (absent when removed).
 * @category Plan
 */
export interface FieldChange {
  path: string;
  before?: unknown;
  after?: unknown;
}

/** Server-owned metadata a planned change never meaningfully sets; left out of diffs. */
const IGNORED = new Set([
  'metadata.resourceVersion',
  'metadata.managedFields',
  'metadata.uid',
  'metadata.creationTimestamp',
  'metadata.generation',
]);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(prefix: string, key: string): string {
  return prefix === '' ? key : `${prefix}.${key}`;
}

/** The leaf fields that differ between `before` and `after`, in path order. */
export function fieldDiff(before: unknown, after: unknown, prefix = ''): FieldChange[] {
  if (IGNORED.has(prefix)) return [];
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => fieldDiff(before[k], after[k], join(prefix, k)));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const out: FieldChange[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      out.push(...fieldDiff(before[i], after[i], `${prefix}[${i}]`));
    }
    return out;
  }
  if (isPlainObject(after) && before === undefined) {
    return Object.keys(after)
      .sort()
      .flatMap((k) => fieldDiff(undefined, after[k], join(prefix, k)));
  }
  if (isPlainObject(before) && after === undefined) {
    return Object.keys(before)
      .sort()
      .flatMap((k) => fieldDiff(before[k], undefined, join(prefix, k)));
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const change: FieldChange = { path: prefix };
  if (before !== undefined) change.before = before;
  if (after !== undefined) change.after = after;
  return [change];
}
