import type { KubernetesObject } from '@kubernetes/client-node';

/** Distinct strings the table holds at most; when full it starts over (a bound, not an eviction policy). */
export const INTERNED_STRINGS_MAX = 4_096;
/** Longer strings are not interned (a namespace is at most 63 characters, an apiVersion about as long). */
const INTERNED_LENGTH_MAX = 128;

/**
 * One copy of each string that repeats across cached objects. `JSON.parse` makes a new string for every value
 * longer than a few characters, so 10,000 cached objects of one kind in one namespace held 10,000 copies of
 * its apiVersion, of the namespace and of each creation second (~40 bytes each, measured in
 * docs/benchmarks.md). Bounded: {@link INTERNED_STRINGS_MAX} distinct strings, then it starts over, so
 * values that do not repeat cost a lookup and nothing more.
 */
class StringTable {
  private readonly values = new Map<string, string>();

  intern(value: string): string {
    if (value.length > INTERNED_LENGTH_MAX) return value;
    const known = this.values.get(value);
    if (known !== undefined) return known;
    if (this.values.size >= INTERNED_STRINGS_MAX) this.values.clear();
    this.values.set(value, value);
    return value;
  }

  get size(): number {
    return this.values.size;
  }
}

/** One table per process: the caches of every kind share apiVersions (an ownerReference names its owner's). */
const table = new StringTable();

/** Number of strings interned now (for specs). */
export function internedStrings(): number {
  return table.size;
}

/** `record[field]` replaced by the interned copy, when it is a string. */
function internField(record: Record<string, unknown>, field: string): void {
  const value = record[field];
  if (typeof value === 'string') record[field] = table.intern(value);
}

/**
 * Makes an object that just arrived from the API server (ours: parsed from the response) cheaper to cache,
 * in place: drops `metadata.managedFields` when `stripManagedFields`, and shares one copy of the strings
 * that repeat across objects — apiVersion, kind, `metadata.namespace`, `metadata.creationTimestamp` and the
 * apiVersion and kind of each ownerReference. Values, keys and field order stay as they were.
 *
 * managedFields are dropped by giving the object a new metadata without them: `delete` would leave the
 * metadata in V8's dictionary mode, which costs more than the copy saves (a cached ConfigMap: 1,188 bytes
 * of heap after `delete`, 812 with the copy).
 */
export function compactObject(obj: KubernetesObject, stripManagedFields: boolean): void {
  if (typeof obj !== 'object' || (obj as unknown) === null) return;
  const root = obj as unknown as Record<string, unknown>;
  internField(root, 'apiVersion');
  internField(root, 'kind');
  const given: unknown = obj.metadata;
  if (typeof given !== 'object' || given === null) return;
  let metadata = given as Record<string, unknown>;
  if (stripManagedFields && metadata.managedFields !== undefined) {
    const { managedFields: _dropped, ...rest } = metadata;
    metadata = rest;
    root.metadata = rest;
  }
  internField(metadata, 'namespace');
  internField(metadata, 'creationTimestamp');
  const owners = metadata.ownerReferences;
  if (!Array.isArray(owners)) return;
  for (const owner of owners as unknown[]) {
    if (typeof owner !== 'object' || owner === null) continue;
    internField(owner as Record<string, unknown>, 'apiVersion');
    internField(owner as Record<string, unknown>, 'kind');
  }
}
