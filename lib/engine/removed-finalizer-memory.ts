/**
 * Remembers objects (by UID) whose finalizer this framework removed, for a while. Events queued
 * before the removal (our own patch, other controllers' patches, the final DELETED) still show the
 * object being deleted; the memory makes them skip the delete path, so every deletion succeeds
 * exactly once per object per framework (operatorkit #259/#268). Expired entries are purged lazily.
 * @category Engine: Framework and ControllerCore
 */
export class RemovedFinalizerMemory {
  private readonly entries = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  /** `ttlMs`: how long a removal is remembered; `now`: clock (injectable for tests). */
  constructor(ttlMs: number, now: () => number = Date.now) {
    this.ttlMs = ttlMs;
    this.now = now;
  }

  /** Records that our finalizer was removed from the object with this UID. */
  remember(uid: string): void {
    this.purge();
    this.entries.set(uid, this.now() + this.ttlMs);
  }

  /** Whether our finalizer was removed from this UID within the TTL. */
  has(uid: string): boolean {
    const expires = this.entries.get(uid);
    if (expires === undefined) return false;
    if (expires <= this.now()) {
      this.entries.delete(uid);
      return false;
    }
    return true;
  }

  /** Number of remembered objects (expired ones included until purged). */
  get size(): number {
    return this.entries.size;
  }

  /** Drops expired entries. */
  purge(): void {
    const now = this.now();
    for (const [uid, expires] of this.entries) if (expires <= now) this.entries.delete(uid);
  }
}
