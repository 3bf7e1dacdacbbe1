/**
 * The JSONPath subset of declarative expressions: `$` is the document, `$$` the current element inside
 * `@map`, `@filter`, `@any`, `@all`, `@none` and `@fold`. Segments: `.name`, `['any key']`, `["any key"]`,
 * `[3]`, `[-1]` (from the end), and the wildcard `[*]` / `.*`, which makes the path return a list of every
 * match. `$.` alone is the document (dcontroller writes it so). Recursive descent (`..`) and filters
 * (`[?(…)]`) are not supported: parsing them throws, so a spec using them fails when loaded, not at run time.
 */

/** One step of a parsed path. */
export type JsonPathSegment = { key: string } | { index: number } | { wildcard: true };

/** A parsed path: which root, and the steps from it. */
export interface JsonPath {
  readonly root: '$' | '$$';
  readonly segments: readonly JsonPathSegment[];
  /** Whether any segment is a wildcard (the path then yields a list). */
  readonly multi: boolean;
  /** The text it was parsed from. */
  readonly source: string;
}

/** Thrown by {@link parseJsonPath}; `message` says what is wrong at which character. */
export class JsonPathSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPathSyntaxError';
  }
}

/** Whether a string in an expression is read as a JSONPath (it starts with `$`). */
export function isJsonPathString(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('$');
}

const NAME = /^[^.[\]\s'"]+/;

/** Parses `text` or throws a {@link JsonPathSyntaxError} naming the position. */
export function parseJsonPath(text: string): JsonPath {
  let root: '$' | '$$';
  let i: number;
  if (text.startsWith('$$')) {
    root = '$$';
    i = 2;
  } else if (text.startsWith('$')) {
    root = '$';
    i = 1;
  } else {
    throw new JsonPathSyntaxError(`JSONPath ${JSON.stringify(text)} must start with '$' (or '$$')`);
  }
  const segments: JsonPathSegment[] = [];
  const fail = (what: string): never => {
    throw new JsonPathSyntaxError(
      `malformed JSONPath ${JSON.stringify(text)} at character ${String(i)}: ${what}`,
    );
  };
  if (text.length === i + 1 && text[i] === '.') return { root, segments, multi: false, source: text };
  while (i < text.length) {
    const c = text[i];
    if (c === '.') {
      i++;
      if (text[i] === '.') fail("recursive descent '..' is not supported");
      if (text[i] === '*') {
        segments.push({ wildcard: true });
        i++;
        continue;
      }
      const m = NAME.exec(text.slice(i));
      if (m === null) fail('expected a field name after "."');
      else {
        segments.push({ key: m[0] });
        i += m[0].length;
      }
    } else if (c === '[') {
      i++;
      const q = text[i];
      if (q === "'" || q === '"') {
        let key = '';
        i++;
        while (i < text.length && text[i] !== q) {
          if (text[i] === '\\' && i + 1 < text.length) i++;
          key += text.charAt(i);
          i++;
        }
        if (text[i] !== q) fail('unterminated quoted key');
        i++;
        segments.push({ key });
      } else if (q === '*') {
        i++;
        segments.push({ wildcard: true });
      } else if (q === '?' || q === '(') {
        fail('filter and script expressions are not supported');
      } else {
        const m = /^-?\d+/.exec(text.slice(i));
        if (m === null) fail("expected an index, '*' or a quoted key after '['");
        else {
          segments.push({ index: Number(m[0]) });
          i += m[0].length;
        }
      }
      if (text[i] !== ']') fail("expected ']'");
      i++;
    } else {
      fail(`unexpected ${JSON.stringify(c)}; use '.name' or ['name']`);
    }
  }
  return { root, segments, multi: segments.some((s) => 'wildcard' in s), source: text };
}

function step(value: unknown, seg: JsonPathSegment, out: unknown[]): void {
  if ('key' in seg) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const v = (value as Record<string, unknown>)[seg.key];
      if (v !== undefined && Object.hasOwn(value, seg.key)) out.push(v);
    }
  } else if ('index' in seg) {
    if (Array.isArray(value)) {
      const idx = seg.index < 0 ? value.length + seg.index : seg.index;
      if (idx >= 0 && idx < value.length) out.push(value[idx]);
    }
  } else if (Array.isArray(value)) {
    for (const v of value as unknown[]) out.push(v);
  } else if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value as Record<string, unknown>)) out.push(v);
  }
}

/**
 * The value at `path` in `root`: `undefined` when any step is missing. A path with a wildcard returns the
 * list of every match (empty when none).
 */
export function getJsonPath(path: JsonPath, root: unknown): unknown {
  if (!path.multi) {
    // The hot path (no wildcard): no intermediate lists.
    let value = root;
    for (const seg of path.segments) {
      if (typeof value !== 'object' || value === null) return undefined;
      if ('key' in seg) {
        if (Array.isArray(value) || !Object.hasOwn(value, seg.key)) return undefined;
        value = (value as Record<string, unknown>)[seg.key];
      } else if ('index' in seg) {
        if (!Array.isArray(value)) return undefined;
        const idx = seg.index < 0 ? value.length + seg.index : seg.index;
        if (idx < 0 || idx >= value.length) return undefined;
        value = value[idx] as unknown;
      }
      if (value === undefined) return undefined;
    }
    return value;
  }
  let values = [root];
  for (const seg of path.segments) {
    const next: unknown[] = [];
    for (const v of values) step(v, seg, next);
    values = next;
  }
  return values;
}

/**
 * Sets `value` at `path` inside `target` (mutating it), creating objects (or lists, before an index) on the
 * way. Returns `target`, or `value` itself when the path is the root. Throws a `TypeError` when a step meets
 * a value of the wrong shape, or the path holds a wildcard.
 */
export function setJsonPath(path: JsonPath, target: unknown, value: unknown): unknown {
  if (path.multi) throw new TypeError(`cannot set through a wildcard path ${path.source}`);
  if (path.segments.length === 0) return value;
  let node = target;
  path.segments.forEach((seg, n) => {
    const last = n === path.segments.length - 1;
    const nextSeg = path.segments[n + 1];
    const fresh = (): unknown => (nextSeg !== undefined && 'index' in nextSeg ? [] : {});
    if ('key' in seg) {
      if (typeof node !== 'object' || node === null || Array.isArray(node)) {
        throw new TypeError(`cannot set field '${seg.key}' of a non-object in ${path.source}`);
      }
      const obj = node as Record<string, unknown>;
      if (last) obj[seg.key] = value;
      else {
        const child = obj[seg.key];
        if (typeof child !== 'object' || child === null) obj[seg.key] = fresh();
        node = obj[seg.key];
      }
    } else if ('index' in seg) {
      if (!Array.isArray(node))
        throw new TypeError(`cannot set index ${String(seg.index)} of a non-list in ${path.source}`);
      const list = node as unknown[];
      const idx = seg.index < 0 ? list.length + seg.index : seg.index;
      if (idx < 0) throw new TypeError(`index ${String(seg.index)} out of range in ${path.source}`);
      while (list.length < idx) list.push(null);
      if (last) list[idx] = value;
      else {
        const child = list[idx];
        if (typeof child !== 'object' || child === null) list[idx] = fresh();
        node = list[idx];
      }
    }
  });
  return target;
}
