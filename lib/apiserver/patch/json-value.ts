/** Small helpers for JSON-shaped values shared by the patch, schema and table modules. */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deep copy of a JSON value (undefined stays undefined, as do keys whose value is undefined). Plain objects
 * and arrays are copied by a walk — about seven times faster than `structuredClone` for a ConfigMap, and the
 * server copies objects on every write; anything else (a Date, a Buffer) goes through `structuredClone`.
 * Request bodies are bounded in depth before they get here, so the walk's recursion is bounded too.
 */
export function cloneJson<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyValue(value[i]);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copy = copyValue((value as Record<string, unknown>)[key]);
    // A "__proto__" member parsed from JSON is an own field; assigning it would set the prototype instead.
    if (key === '__proto__') {
      Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    } else out[key] = copy;
  }
  return out;
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
