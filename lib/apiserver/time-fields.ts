import { isJsonObject, type JsonObject } from './json.js';
import { badRequest } from './status.js';

const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/i;

/**
 * Re-serialises a time as kube-apiserver does after decoding it: metav1.Time with second precision,
 * metav1.MicroTime with exactly six fractional digits, both in UTC. Unparsable → 400, as decoding fails.
 */
export function normalizeTime(value: string, micro: boolean, field: string): string {
  const m = RFC3339.exec(value);
  if (!m) throw badRequest(`${field}: parsing time "${value}" as RFC 3339 failed`);
  let base = m[1] ?? '';
  let fraction = (m[2] ?? '').slice(1);
  const zone = (m[3] ?? 'Z').toUpperCase();
  if (zone !== 'Z') {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw badRequest(`${field}: parsing time "${value}" as RFC 3339 failed`);
    base = new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19);
  }
  if (!micro) return `${base}Z`;
  fraction = (fraction + '000000').slice(0, 6);
  return `${base}.${fraction}Z`;
}

const TIME_FIELDS: Record<string, { path: string[]; micro: boolean }[]> = {
  'coordination.k8s.io/leases': [
    { path: ['spec', 'acquireTime'], micro: true },
    { path: ['spec', 'renewTime'], micro: true },
  ],
  '/events': [
    { path: ['eventTime'], micro: true },
    { path: ['firstTimestamp'], micro: false },
    { path: ['lastTimestamp'], micro: false },
    { path: ['series', 'lastObservedTime'], micro: true },
  ],
  'events.k8s.io/events': [
    { path: ['eventTime'], micro: true },
    { path: ['deprecatedFirstTimestamp'], micro: false },
    { path: ['deprecatedLastTimestamp'], micro: false },
    { path: ['series', 'lastObservedTime'], micro: true },
  ],
};

/** Normalises the typed time fields of the built-in kinds that have them (in place). */
export function normalizeTimeFields(typeKey: string, obj: JsonObject): void {
  for (const { path, micro } of TIME_FIELDS[typeKey] ?? []) {
    let parent: JsonObject | undefined = obj;
    for (const part of path.slice(0, -1)) {
      const next: unknown = parent[part];
      parent = isJsonObject(next) ? next : undefined;
      if (!parent) break;
    }
    const leaf = path[path.length - 1] ?? '';
    const value = parent?.[leaf];
    if (parent && typeof value === 'string' && value !== '') {
      parent[leaf] = normalizeTime(value, micro, path.join('.'));
    }
  }
}
