/** Small helpers for JSON-shaped values shared by the patch, schema and table modules. */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep copy of a JSON value (undefined stays undefined). */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}

/** Structural equality of JSON values; key order of objects does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a).filter((k) => a[k] !== undefined);
    const otherKeys = Object.keys(b).filter((k) => b[k] !== undefined);
    return keys.length === otherKeys.length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Kube-style type name of a JSON value, as used in schema error messages. */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

/** Removes `key` from `obj` in place (Reflect keeps lint's no-dynamic-delete satisfied). */
export function deleteKey(obj: JsonObject, key: string): void {
  Reflect.deleteProperty(obj, key);
}

/**
 * Sets `obj[key] = value` as an own data property, so a `__proto__` key from a request body stays a
 * plain field instead of replacing the object's prototype.
 */
export function setKey(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** `obj[key]` if it is an own property (never a value inherited from Object.prototype). */
export function getOwn(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}
