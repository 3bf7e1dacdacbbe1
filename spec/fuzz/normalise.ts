// What legitimately differs between two servers answering the same request is replaced by stable
// placeholders before answers are compared: the run's namespace, uids (numbered by first appearance),
// generated names (numbered), resourceVersions, timestamps and the resourceVersion inside continue tokens.
// Everything else is compared as it came.

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g;
/** A resourceVersion inside a message that quotes an object (`…\"resourceVersion\":\"123\"…`). */
const QUOTED_RV = /(resourceVersion\\*":\\*")\d+/g;

/** One server's placeholders (its uids and generated names are numbered in the order it showed them). */
export class Normaliser {
  private readonly uids = new Map<string, string>();
  private readonly generated: string[] = [];
  /** Every resourceVersion this server showed: replaced where a message quotes one. */
  private readonly versions = new Set<string>();

  constructor(readonly namespace: string) {}

  /** A name this server generated (from `generateName`): shown as `$GEN<n>` from now on. */
  noteGenerated(name: string): void {
    if (!this.generated.includes(name)) this.generated.push(name);
  }

  /** The name this server generated last. */
  lastGenerated(): string | undefined {
    return this.generated[this.generated.length - 1];
  }

  normalise(value: unknown): unknown {
    if (value === undefined) return undefined;
    let text = JSON.stringify(decodeContinue(value));
    text = text.split(this.namespace).join('$NS');
    this.generated.forEach((name, i) => {
      text = text.split(name).join(`$GEN${String(i)}`);
    });
    text = text.replace(UUID, (uid) => {
      let placeholder = this.uids.get(uid);
      if (placeholder === undefined) {
        placeholder = `<uid${String(this.uids.size)}>`;
        this.uids.set(uid, placeholder);
      }
      return placeholder;
    });
    const parsed = JSON.parse(text) as unknown;
    walk(parsed, (key, v) => {
      if (key === 'resourceVersion' && typeof v === 'string' && /^\d+$/.test(v)) this.versions.add(v);
      return v;
    });
    return walk(placeholders(parsed), (key, v) =>
      key === 'message' && typeof v === 'string'
        ? // resourceVersions a message quotes: `… in the precondition (123) … in record (456)`.
          v.replace(/\((\d+)\)/g, (whole, n: string) => (this.versions.has(n) ? '(<rv>)' : whole))
        : v,
    );
  }
}

/** Continue tokens are base64 JSON holding a resourceVersion: decoded so that part can be replaced. */
function decodeContinue(value: unknown): unknown {
  return walk(value, (key, v) => {
    if (key !== 'continue' || typeof v !== 'string' || v === '') return v;
    try {
      const decoded = JSON.parse(Buffer.from(v, 'base64').toString('utf8')) as Record<string, unknown>;
      return { ...decoded, rv: '<rv>' };
    } catch {
      return v;
    }
  });
}

/**
 * managedFields entries sorted without their time: kube orders them by operation, time (to the second),
 * manager, apiVersion and subresource, and two servers answering the same request may stamp it on either
 * side of a second boundary.
 */
function sortManagedFields(entries: unknown[]): unknown[] {
  const id = (e: unknown): string => {
    const o = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
    return [o.operation, o.manager, o.apiVersion, o.subresource]
      .map((v) => (typeof v === 'string' ? v : ''))
      .join('\u0000');
  };
  return [...entries].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
}

/**
 * Server-side apply conflicts sorted by manager and field: kube builds the causes of conflicts with several
 * managers in Go map order, which varies from call to call (the message lists them sorted).
 */
function sortConflicts(causes: unknown[]): unknown[] {
  const conflict = (c: unknown): boolean =>
    typeof c === 'object' && c !== null && (c as Record<string, unknown>).reason === 'FieldManagerConflict';
  if (!causes.every(conflict)) return causes;
  const id = (c: unknown): string => {
    const o = c as Record<string, unknown>;
    return `${String(o.message)}\u0000${String(o.field)}`;
  };
  return [...causes].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
}

function placeholders(value: unknown): unknown {
  return walk(value, (key, v) => {
    if (key === 'managedFields' && Array.isArray(v)) return sortManagedFields(v);
    if (key === 'causes' && Array.isArray(v)) return sortConflicts(v);
    if (key === 'resourceVersion' && typeof v === 'string' && v !== '') return '<rv>';
    if (typeof v === 'string') return v.replace(TIME, '<time>').replace(QUOTED_RV, '$1<rv>');
    return v;
  });
}

function walk(
  value: unknown,
  visit: (key: string | undefined, v: unknown) => unknown,
  key?: string,
): unknown {
  const v = visit(key, value);
  if (Array.isArray(v)) return v.map((item) => walk(item, visit));
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, child] of Object.entries(v)) out[k] = walk(child, visit, k);
    return out;
  }
  return v;
}

/**
 * The first path at which `a` and `b` differ (`body.metadata.labels.app`, `warnings[1]`), or undefined when
 * they are equal. Object keys compare as sets (JSON objects are unordered); list items compare in order.
 */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length || i >= b.length) return `${path}[${String(i)}]`;
      const d = firstDifference(a[i], b[i], `${path}[${String(i)}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (isObject(a) && isObject(b)) {
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.hasOwn(a, k))];
    for (const k of keys) {
      const at = path === '' ? k : `${path}.${k}`;
      if (!Object.hasOwn(a, k) || !Object.hasOwn(b, k)) {
        if (a[k] === undefined && b[k] === undefined) continue;
        return at;
      }
      const d = firstDifference(a[k], b[k], at);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return a === b ? undefined : path === '' ? '(root)' : path;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value at a path `firstDifference` returned. */
export function valueAt(value: unknown, path: string): unknown {
  if (path === '(root)') return value;
  let at: unknown = value;
  for (const part of path.match(/[^.[\]]+|\[\d+\]/g) ?? []) {
    if (at === undefined || at === null) return undefined;
    if (part.startsWith('[')) at = Array.isArray(at) ? at[Number(part.slice(1, -1))] : undefined;
    else at = isObject(at) ? at[part] : undefined;
  }
  return at;
}
