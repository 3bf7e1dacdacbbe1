import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Objects the core holds besides the watch cache: `remembered` — objects fed through the informer
 * drop-ins (`updateFunc`) or patched by the engine itself before its watch delivered them — and
 * `tombstones` — the last known state of gone objects whose delete path must still run (finalizers off).
 */
export class DropInObjects<Obj extends KubernetesObject> {
  private readonly remembered = new Map<string, Obj>();
  private readonly tombstones = new Map<string, Obj>();

  remembers(key: string): Obj | undefined {
    return this.remembered.get(key);
  }

  remember(key: string, obj: Obj): void {
    this.remembered.set(key, obj);
    this.tombstones.delete(key);
  }

  forget(key: string): void {
    this.remembered.delete(key);
  }

  tombstone(key: string): Obj | undefined {
    return this.tombstones.get(key);
  }

  /** The object is gone; `last` is kept when its delete path must still run. */
  gone(key: string, last: Obj | undefined): void {
    this.remembered.delete(key);
    if (last !== undefined) this.tombstones.set(key, last);
  }

  /**
   * The watch saw the object (the cache has it): nothing remembered; the tombstone goes only when it is
   * this very object again (same uid). A new object under the old name leaves the old one's tombstone:
   * its delete path still runs (finalizers off, the name re-created before the delete pass ran).
   */
  seen(key: string, uid: string | undefined): void {
    const tombstone = this.tombstones.get(key);
    if (tombstone !== undefined && (uid === undefined || tombstone.metadata?.uid === uid)) {
      this.tombstones.delete(key);
    }
    this.remembered.delete(key);
  }

  /** The delete path of `tombstone` finished (unless a newer tombstone replaced it meanwhile). */
  tombstoneDone(key: string, tombstone: Obj): void {
    if (this.tombstones.get(key) === tombstone) this.tombstones.delete(key);
  }

  /** Every key held. */
  keys(): Iterable<string> {
    const keys = new Set<string>(this.remembered.keys());
    for (const key of this.tombstones.keys()) keys.add(key);
    return keys;
  }
}
