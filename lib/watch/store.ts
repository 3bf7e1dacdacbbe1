import type { KubernetesObject } from '@kubernetes/client-node';

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
  private readonly owners = new Map<string, Set<string>>();

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
    for (const key of keys) {
      const obj = this.objects.get(key);
      if (obj !== undefined) found.push(obj);
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
      let keys = this.owners.get(ref.uid);
      if (keys === undefined) {
        keys = new Set();
        this.owners.set(ref.uid, keys);
      }
      keys.add(key);
    }
    return old;
  }

  /** Removes the object under `key`, returning it. */
  delete(key: string): T | undefined {
    const old = this.objects.get(key);
    if (old === undefined) return undefined;
    this.unindex(key, old);
    this.objects.delete(key);
    return old;
  }

  private unindex(key: string, obj: T): void {
    for (const ref of obj.metadata?.ownerReferences ?? []) {
      const keys = this.owners.get(ref.uid);
      keys?.delete(key);
      if (keys?.size === 0) this.owners.delete(ref.uid);
    }
  }
}
