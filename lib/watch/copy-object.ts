/**
 * A deep copy of a JSON value (what the API server sends: objects, arrays, strings, numbers, booleans, null).
 * Cached objects are shared by every reader; a read through the client hands out a copy, so code that
 * changes what it read (as code written against the API server does) cannot corrupt the cache. A plain
 * recursive copy: several times faster than `structuredClone` on these shapes.
 */
export function copyObject<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyObject(value[i] as unknown);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (Object.hasOwn(value, key)) out[key] = copyObject((value as Record<string, unknown>)[key]);
  }
  return out as T;
}
