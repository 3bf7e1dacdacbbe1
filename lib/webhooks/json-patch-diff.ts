/**
 * The RFC 6902 JSON patch that turns one JSON value into another: what a defaulter's response carries.
 *
 * Written here rather than taken from a library because the output is small and must be exact: paths are
 * RFC 6901-escaped (`~0`, `~1`), objects are diffed key by key, and an array whose length changed is
 * replaced whole (the API server applies the patch with evanphx/json-patch, where index-wise `add` and
 * `remove` on a shifting array are easy to get wrong and buy nothing for objects of this size). An
 * unchanged value yields no operation; a changed root (never an object's case) is one `replace` of `""`.
 */

/** One RFC 6902 operation as emitted here. */
export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

/** RFC 6901 escaping of one reference token. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => equal(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
  }
  return false;
}

function diff(before: unknown, after: unknown, path: string, out: JsonPatchOperation[]): void {
  if (equal(before, after)) return;
  if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of Object.keys(before)) {
      if (!Object.hasOwn(after, key) || after[key] === undefined) {
        out.push({ op: 'remove', path: `${path}/${escapePointerToken(key)}` });
      }
    }
    for (const [key, value] of Object.entries(after)) {
      if (value === undefined) continue;
      const child = `${path}/${escapePointerToken(key)}`;
      if (!Object.hasOwn(before, key) || before[key] === undefined)
        out.push({ op: 'add', path: child, value });
      else diff(before[key], value, child, out);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    before.forEach((item, i) => {
      diff(item, after[i], `${path}/${i}`, out);
    });
    return;
  }
  out.push({ op: 'replace', path, value: after });
}

/** The operations turning `before` into `after` (both plain JSON values); empty when they are equal. */
export function jsonPatchDiff(before: unknown, after: unknown): JsonPatchOperation[] {
  const out: JsonPatchOperation[] = [];
  diff(before, after, '', out);
  return out;
}
