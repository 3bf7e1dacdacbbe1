// The deliberate differences between the embedded server and kube-apiserver that the fuzzer meets. Each
// names why it stays and the row of docs/apiserver.md ("Known differences from kube-apiserver") that tells
// users, and rewrites an answer so that this difference — and nothing else — compares equal; anything it
// does not cover fails the run. Keep it short: a fix beats an entry.

export interface AllowedDifference {
  /** Short identifier, shown in reports. */
  id: string;
  /** Why the difference is deliberate. */
  reason: string;
  /** The first cell of the docs/apiserver.md row that documents it. */
  docsRow: string;
  /** The answer (or watch events) with this difference made canonical; the same value when it does not apply. */
  canonical(value: unknown): unknown;
}

function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
  }
  return value;
}

function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** `Invalid value: "<Go-quoted JSON object>":` as kube's `patch` errors quote the patched object. */
const QUOTED_OBJECT = /Invalid value: ("\{(?:[^"\\]|\\.)*\}")/g;

export const ALLOW_LIST: readonly AllowedDifference[] = [
  {
    id: 'patched-object-key-order',
    reason:
      'a patch whose result does not decode (a number where a string goes, bad base64, an unknown field with fieldValidation=Strict) is a 422 quoting the patched object; kube quotes it as Go encodes it, with struct fields in Go declaration order, which the embedded server does not track: the same object, keys in another order',
    docsRow: 'the patched object quoted in a 422 `patch` error',
    canonical: (value) =>
      mapStrings(value, (s) =>
        s.replace(QUOTED_OBJECT, (whole, quoted: string) => {
          try {
            const object: unknown = JSON.parse(JSON.parse(quoted) as string);
            return `Invalid value: ${JSON.stringify(sortedJson(object))}`;
          } catch {
            return whole;
          }
        }),
      ),
  },
];

/** The entries that make `a` and `b` compare equal, with the canonical values; undefined when none do. */
export function canonicalise(
  list: readonly AllowedDifference[],
  a: unknown,
  b: unknown,
): { a: unknown; b: unknown; used: string[] } {
  let x = a;
  let y = b;
  const used: string[] = [];
  for (const entry of list) {
    const cx = entry.canonical(x);
    const cy = entry.canonical(y);
    if (JSON.stringify(cx) !== JSON.stringify(x) || JSON.stringify(cy) !== JSON.stringify(y))
      used.push(entry.id);
    x = cx;
    y = cy;
  }
  return { a: x, b: y, used };
}
