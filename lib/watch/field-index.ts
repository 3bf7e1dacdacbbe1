import type { KubernetesObject } from '@kubernetes/client-node';
import { InvalidConfigError } from '../errors/invalid-config-error.js';

/**
 * The values an object is indexed under for one field index (controller-runtime's `IndexerFunc`): e.g.
 * the names of the Secrets a Website references. An empty array (or undefined) leaves the object out of
 * the index; values that are not strings are ignored. Must not throw: a throwing function leaves that
 * object out (counted in {@link FieldIndexes.failures}).
 * @category Watch and cache
 */
export type IndexFunc<T extends KubernetesObject = KubernetesObject> = (
  obj: T,
) => readonly string[] | string | undefined;

/**
 * Thrown when a read asks for a field index that was not registered on that kind's cache.
 * @category Watch and cache
 */
export class IndexNotFoundError extends Error {
  override readonly name = 'IndexNotFoundError';
  constructor(
    readonly index: string,
    readonly kind: string,
  ) {
    super(
      `no field index "${index}" on the cache of ${kind}: register it with indexField({ apiVersion, kind: '${kind}' }, '${index}', fn) ` +
        '(on the controller, the Operator or the InformerCache) before reading by it',
    );
  }
}

/** Longest index name, and most indexes on one kind (a bound on what one registration costs). */
const MAX_INDEX_NAME = 253;
const MAX_INDEXES = 64;

/** A checked index name. */
export function checkIndexName(name: unknown): string {
  if (typeof name !== 'string' || name === '' || name.length > MAX_INDEX_NAME) {
    throw new InvalidConfigError(
      `a field index name must be a non-empty string of at most ${MAX_INDEX_NAME} characters (e.g. 'spec.secretName'); got ${typeof name === 'string' ? JSON.stringify(name.slice(0, 40)) : typeof name}`,
    );
  }
  return name;
}

/** A checked index function. */
export function checkIndexFunc(fn: unknown, name: string): void {
  if (typeof fn !== 'function') {
    throw new InvalidConfigError(
      `field index "${name}": fn must be a function (obj) => string[] (the values obj is found under); got ${typeof fn}`,
    );
  }
}

/**
 * Field indexes of one store: per index, value → keys of the objects indexed under it, kept up to date on
 * every set and delete. A lookup costs the number of matches, not the size of the store.
 */
export class FieldIndexes<T extends KubernetesObject = KubernetesObject> {
  private readonly fns = new Map<string, IndexFunc<T>>();
  /** index → value → keys. */
  private readonly byValue = new Map<string, Map<string, Set<string>>>();
  /** index → key → the values it is indexed under (to unindex without calling fn again). */
  private readonly valuesOf = new Map<string, Map<string, readonly string[]>>();
  private failed = 0;

  /** `kind`: the kind these objects are, as errors name it. */
  constructor(readonly kind: string) {}

  /** Index functions that threw (each such object was left out of that index). */
  get failures(): number {
    return this.failed;
  }

  /** Names of the registered indexes. */
  names(): string[] {
    return [...this.fns.keys()];
  }

  has(name: string): boolean {
    return this.fns.has(name);
  }

  /**
   * Registers `fn` as index `name` and indexes `objects` (what the store holds now). The same function
   * again is a no-op; another function under a taken name is refused.
   */
  add(name: string, fn: IndexFunc<T>, objects: Iterable<[string, T]>): void {
    const kind = this.kind;
    checkIndexName(name);
    checkIndexFunc(fn, name);
    const existing = this.fns.get(name);
    if (existing === fn) return;
    if (existing !== undefined) {
      throw new InvalidConfigError(
        `field index "${name}" on ${kind} is already registered with another function: give this one another name`,
      );
    }
    if (this.fns.size >= MAX_INDEXES) {
      throw new InvalidConfigError(`at most ${MAX_INDEXES} field indexes per kind (${kind})`);
    }
    this.fns.set(name, fn);
    this.byValue.set(name, new Map());
    this.valuesOf.set(name, new Map());
    for (const [key, obj] of objects) this.indexOne(name, fn, key, obj);
  }

  /** `obj` is now stored under `key` (replacing whatever was). */
  set(key: string, obj: T): void {
    for (const [name, fn] of this.fns) {
      this.unindexOne(name, key);
      this.indexOne(name, fn, key, obj);
    }
  }

  /** Nothing is stored under `key` any more. */
  delete(key: string): void {
    for (const name of this.fns.keys()) this.unindexOne(name, key);
  }

  /** Keys indexed under `value` in index `name` (undefined: no such index). */
  keys(name: string, value: string): ReadonlySet<string> | undefined {
    const index = this.byValue.get(name);
    if (index === undefined) return undefined;
    return index.get(value) ?? EMPTY;
  }

  private indexOne(name: string, fn: IndexFunc<T>, key: string, obj: T): void {
    let raw: readonly string[] | string | undefined;
    try {
      raw = fn(obj);
    } catch {
      this.failed += 1;
      return;
    }
    const values = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? uniqueStrings(raw) : [];
    if (values.length === 0) return;
    const index = this.byValue.get(name);
    if (index === undefined) return;
    for (const value of values) {
      let keys = index.get(value);
      if (keys === undefined) {
        keys = new Set();
        index.set(value, keys);
      }
      keys.add(key);
    }
    this.valuesOf.get(name)?.set(key, values);
  }

  private unindexOne(name: string, key: string): void {
    const of = this.valuesOf.get(name);
    const values = of?.get(key);
    if (values === undefined) return;
    of?.delete(key);
    const index = this.byValue.get(name);
    for (const value of values) {
      const keys = index?.get(value);
      keys?.delete(key);
      if (keys?.size === 0) index?.delete(value);
    }
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function uniqueStrings(raw: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const v of raw) if (typeof v === 'string' && !out.includes(v)) out.push(v);
  return out;
}
