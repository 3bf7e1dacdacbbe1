/** A decoded JSON object; everything the server stores and serves is one of these. */
export type JsonObject = Record<string, unknown>;

/** True for plain JSON objects (not arrays, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object at `obj[key]`, or undefined when absent or not an object. */
export function objectAt(obj: JsonObject | undefined, key: string): JsonObject | undefined {
  const value = obj?.[key];
  return isJsonObject(value) ? value : undefined;
}

/** The string at `obj[key]`, or undefined when absent or not a string. */
export function stringAt(obj: JsonObject | undefined, key: string): string | undefined {
  const value = obj?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** The metadata object of a Kubernetes object (an empty object when absent). */
export function metadataOf(obj: JsonObject): JsonObject {
  return objectAt(obj, 'metadata') ?? {};
}

/** A string array at `obj[key]` (non-strings dropped), or [] when absent. */
export function stringsAt(obj: JsonObject | undefined, key: string): string[] {
  const value = obj?.[key];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Structural equality of two JSON values (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** Reads a dotted path (`spec.replicas`, leading dot allowed) from an object. */
export function valueAtPath(obj: JsonObject, path: string): unknown {
  let current: unknown = obj;
  for (const part of path.replace(/^\./, '').split('.')) {
    if (part === '') continue;
    if (!isJsonObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

/** Writes a dotted path, creating intermediate objects. */
export function setValueAtPath(obj: JsonObject, path: string, value: unknown): void {
  const parts = path
    .replace(/^\./, '')
    .split('.')
    .filter((p) => p !== '');
  const last = parts.pop();
  if (last === undefined) return;
  let current = obj;
  for (const part of parts) {
    const next = current[part];
    if (isJsonObject(next)) {
      current = next;
    } else {
      const created: JsonObject = {};
      current[part] = created;
      current = created;
    }
  }
  current[last] = value;
}

/** RFC 3339 UTC with second precision, as metav1.Time serialises. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** A value as text for messages: strings as-is, anything else as JSON. */
export function display(value: unknown): string {
  if (typeof value === 'string') return value;
  const text = JSON.stringify(value) as string | undefined;
  return text ?? 'undefined';
}
