import type { KubernetesObject } from '@kubernetes/client-node';
import { FieldIndexes, IndexNotFoundError, type IndexFunc } from './field-index.js';

/**
 * Cache key of an object: `namespace/name`, or `name` for cluster-scoped objects (client-go's format).
 * @category Watch and cache
 */
export function objectKey(obj: KubernetesObject): string {
  const name = obj.metadata?.name ?? '';
  const namespace = obj.metadata?.namespace;
  return namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
}

/**
 * Splits a key made by {@link objectKey} back into namespace and name.
 * @category Watch and cache
 */
export function splitObjectKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * The latest known state of every watched object, keyed by {@link objectKey}, with an index by
 * ownerReference uid (for "owned objects enqueue their owner" and cached reads of children).
 *
 * Read-only for users; the watcher writes it. Objects are shared, not copied: do not mutate them.
 * @category Watch and cache
 */
export class Store<T extends KubernetesObject = KubernetesObject> {
  private readonly objects = new Map<string, T>();
  /**
   * Keys of the stored objects per ownerReference uid: the key itself while an owner has one dependent (the
   * common case: a ConfigMap per custom resource), a Set from the second on. A Set per owner cost ~150
   * bytes per cached dependent (the Set and its hash table), a fifth of the object's own heap.
   */
  private readonly owners = new Map<string, string | Set<string>>();
  /** Field indexes (`addIndex`), created on first use. */
  private fields: FieldIndexes<T> | undefined;

  /** The object stored under `key`, if any. */
  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  /** The object `name` in `namespace` (omit for cluster-scoped). */
  getByName(name: string, namespace?: string): T | undefined {
    return this.objects.get(namespace === undefined || namespace === '' ? name : `${namespace}/${name}`);
  }

  /** Every stored object (optionally only those of `namespace`). */
  list(namespace?: string): T[] {
    const all = [...this.objects.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata?.namespace === namespace);
  }

  /** Every key. */
  keys(): string[] {
    return [...this.objects.keys()];
  }

  /** Number of stored objects. */
  get size(): number {
    return this.objects.size;
  }

  /** Stored objects whose ownerReferences name `uid`. */
  byOwnerUid(uid: string): T[] {
    const keys = this.owners.get(uid);
    if (keys === undefined) return [];
    const found: T[] = [];
    for (const key of typeof keys === 'string' ? [keys] : keys) {
      const obj = this.objects.get(key);
      if (obj !== undefined) found.push(obj);
    }
    return found;
  }

  /**
   * Adds field index `name` (controller-runtime's `IndexField`): `fn` gives the values each object is found
   * under, kept up to date on every change; objects stored now are indexed at once. Usually registered
   * through `indexField` on the controller, the Operator or the InformerCache rather than here.
   */
  addIndex(name: string, fn: IndexFunc<T>, kind = 'this kind'): void {
    this.fields ??= new FieldIndexes<T>(kind);
    this.fields.add(name, fn, this.objects);
  }

  /** Whether field index `name` is registered. */
  hasIndex(name: string): boolean {
    return this.fields?.has(name) ?? false;
  }

  /**
   * Stored objects indexed under `value` in field index `name` (controller-runtime's `MatchingFields`),
   * optionally only those of `namespace`. Costs the number of matches, not the size of the store. Throws
   * {@link IndexNotFoundError} when no such index is registered.
   */
  byIndex(name: string, value: string, namespace?: string): T[] {
    const keys = this.fields?.keys(name, value);
    if (keys === undefined) throw new IndexNotFoundError(name, this.fields?.kind ?? 'this kind');
    const found: T[] = [];
    for (const key of keys) {
      const obj = this.objects.get(key);
      if (obj === undefined) continue;
      if (namespace !== undefined && (obj.metadata?.namespace ?? '') !== namespace) continue;
      found.push(obj);
    }
    return found;
  }

  /** Stores `obj`, returning the previous object under its key. */
  set(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.objects.get(key);
    if (old !== undefined) this.unindex(key, old);
    this.objects.set(key, obj);
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      const keys = this.owners.get(ref.uid);
      if (keys === undefined) this.owners.set(ref.uid, key);
      else if (typeof keys !== 'string') keys.add(key);
      else if (keys !== key) this.owners.set(ref.uid, new Set([keys, key]));
    }
    this.fields?.set(key, obj);
    return old;
  }

  /** Removes the object under `key`, returning it. */
  delete(key: string): T | undefined {
    const old = this.objects.get(key);
    if (old === undefined) return undefined;
    this.unindex(key, old);
    this.objects.delete(key);
    this.fields?.delete(key);
    return old;
  }

  private unindex(key: string, obj: T): void {
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      const keys = this.owners.get(ref.uid);
      if (keys === key) this.owners.delete(ref.uid);
      else if (typeof keys === 'object') {
        keys.delete(key);
        if (keys.size === 0) this.owners.delete(ref.uid);
      }
    }
  }
}
