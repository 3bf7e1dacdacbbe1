import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * How long a write of our own is preferred over the cache at most, in ms. Its watch event normally arrives
 * within milliseconds and ends the preference at once; 30 s bounds a write whose event never comes (a watch
 * that lost it to a relist), after which the cache is believed again.
 * @category Watch and cache
 */
export const DEFAULT_OWN_WRITE_TTL_MS = 30_000;

/**
 * Whether resourceVersion `a` is the same as or newer than `b`. etcd's are decimal integers and compare as
 * numbers (the API server's own watch cache relies on it); any other form is only known to be equal.
 * @category Watch and cache
 */
export function resourceVersionAtLeast(a: string, b: string): boolean {
  if (a === b) return true;
  if (!DIGITS.test(a) || !DIGITS.test(b)) return false;
  return a.length !== b.length ? a.length > b.length : a > b;
}

const DIGITS = /^[0-9]+$/;

/** Our writes to one object whose versions are remembered until their watch events come. */
const VERSIONS_PER_OBJECT = 4;

interface Entry {
  /** The server's answer to our write; undefined for our delete. */
  obj: KubernetesObject | undefined;
  /** resourceVersion of the answer, or (a delete) of the object we deleted ('' unknown). */
  rv: string;
  at: number;
}

/**
 * The writes a client made that its cache may not show yet (read-your-own-writes): the answer to each
 * create, update and patch, and each delete, per object, until the watch delivers that version or a newer
 * one. A read after our create sees the object, a read after our update sees our version (so the next write
 * does not hit a stale-version conflict), a read after our delete sees it gone.
 * @category Watch and cache
 */
export class OwnWrites {
  private readonly entries = new Map<string, Entry>();
  /**
   * The resourceVersions of our latest writes per object (oldest first), until a watch event with one of
   * them is asked about ({@link ownVersion}) or they expire: kept apart from `entries`, which the cache's
   * own listener may clear before the controller sees the same event.
   */
  private readonly versions = new Map<string, { rvs: string[]; at: number }>();
  /**
   * Objects with a write of ours sent and not answered yet: how many, and the watch events that arrived
   * meanwhile with a version not known to be ours (the watch may deliver a write before its answer).
   */
  private readonly inFlight = new Map<
    string,
    { writes: number; early: { rv: string; notOurs: () => void }[] }
  >();

  constructor(
    private readonly ttlMs = DEFAULT_OWN_WRITE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Number of writes not yet seen in the cache. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * A write of ours to object `key` of cache `kind` is sent: until {@link settled}, a watch event of the
   * object with an unknown version may be that write's (see {@link ownVersion}).
   */
  writing(kind: string, key: string): void {
    const k = id(kind, key);
    const flight = this.inFlight.get(k);
    if (flight === undefined) this.inFlight.set(k, { writes: 1, early: [] });
    else flight.writes += 1;
  }

  /**
   * The write {@link writing} announced is over (answered — after {@link wrote} — or failed). Once no
   * write of the object is in flight, each watch event that came meanwhile and was not the answer to one
   * of them is reported as not ours (its `notOurs`).
   */
  settled(kind: string, key: string): void {
    const k = id(kind, key);
    const flight = this.inFlight.get(k);
    if (flight === undefined) return;
    flight.writes -= 1;
    if (flight.writes > 0) return;
    this.inFlight.delete(k);
    for (const event of flight.early) event.notOurs();
  }

  /** Our write's answer for object `key` of cache `kind`. */
  wrote(kind: string, key: string, obj: KubernetesObject): void {
    this.sweep();
    const rv = obj.metadata?.resourceVersion ?? '';
    const at = this.now();
    const k = id(kind, key);
    this.put(k, { obj, rv, at });
    const early = this.inFlight.get(k)?.early;
    const i = rv === '' || early === undefined ? -1 : early.findIndex((event) => event.rv === rv);
    // Its watch event came first and was taken as ours already.
    if (i >= 0) early?.splice(i, 1);
    else if (rv !== '') this.putVersion(k, rv, at);
  }

  /**
   * Whether resourceVersion `rv` of object `key`, as a watch delivers it, is the answer to one of our writes
   * (a controller's own write, which a work queue can put behind changes made by others). Each version
   * answers true once; versions older than it are forgotten with it (a watch delivers them in order).
   *
   * A version not known while a write of ours to the object is unanswered may be that write's (the watch
   * can deliver it before the answer arrives): with `notOurs` given, it answers true, and calls `notOurs`
   * once the object's writes are answered if none of them was this version.
   */
  ownVersion(kind: string, key: string, rv: string, notOurs?: () => void): boolean {
    if (rv === '' || (this.versions.size === 0 && this.inFlight.size === 0)) return false;
    const k = id(kind, key);
    const entry = this.versions.get(k);
    const i = entry === undefined ? -1 : entry.rvs.indexOf(rv);
    if (entry === undefined || i < 0) {
      const flight = notOurs === undefined ? undefined : this.inFlight.get(k);
      if (flight === undefined || notOurs === undefined) return false;
      flight.early.push({ rv, notOurs });
      return true;
    }
    entry.rvs.splice(0, i + 1);
    if (entry.rvs.length === 0) this.versions.delete(k);
    return this.now() - entry.at <= this.ttlMs;
  }

  /** Our delete of object `key`; `cached` is what the cache held then. */
  removed(kind: string, key: string, cached: KubernetesObject | undefined): void {
    this.sweep();
    this.put(id(kind, key), {
      obj: undefined,
      rv: cached?.metadata?.resourceVersion ?? '',
      at: this.now(),
    });
  }

  /** The cache delivered `obj` (added, updated or deleted): a write it has caught up with is forgotten. */
  seen(kind: string, key: string, obj: KubernetesObject, deleted: boolean): void {
    if (this.entries.size === 0) return;
    const k = id(kind, key);
    const entry = this.entries.get(k);
    if (entry === undefined) return;
    const rv = obj.metadata?.resourceVersion ?? '';
    const caughtUp =
      entry.obj !== undefined
        ? // our write: its version or a newer one arrived (a later change, or the object's deletion)
          rv !== '' && entry.rv !== '' && resourceVersionAtLeast(rv, entry.rv)
        : // our delete: the deletion arrived, or a newer object under the name (created again)
          deleted ||
          (rv !== '' && rv !== entry.rv && (entry.rv === '' || resourceVersionAtLeast(rv, entry.rv)));
    if (caughtUp) this.entries.delete(k);
  }

  /** What a read of `key` should see, given what the cache holds. */
  resolve(kind: string, key: string, cached: KubernetesObject | undefined): KubernetesObject | undefined {
    if (this.entries.size === 0) return cached;
    const k = id(kind, key);
    const entry = this.entries.get(k);
    if (entry === undefined) return cached;
    if (this.now() - entry.at > this.ttlMs) {
      this.entries.delete(k);
      return cached;
    }
    const cachedRv = cached?.metadata?.resourceVersion ?? '';
    if (entry.obj !== undefined) {
      if (cached !== undefined && cachedRv !== '' && resourceVersionAtLeast(cachedRv, entry.rv)) {
        this.entries.delete(k);
        return cached;
      }
      return entry.obj;
    }
    // Our delete: gone, unless the cache already shows a newer object under the name (created again).
    if (cached === undefined) {
      this.entries.delete(k);
      return undefined;
    }
    if (entry.rv !== '' && cachedRv !== entry.rv && resourceVersionAtLeast(cachedRv, entry.rv)) {
      this.entries.delete(k);
      return cached;
    }
    return undefined;
  }

  /** The keys of `kind` with a pending write (for lists). */
  keysOf(kind: string): string[] {
    if (this.entries.size === 0) return [];
    const prefix = `${kind}\u0000`;
    const keys: string[] = [];
    for (const k of this.entries.keys()) if (k.startsWith(prefix)) keys.push(k.slice(prefix.length));
    return keys;
  }

  /** Forgets everything (the client stops). */
  clear(): void {
    this.entries.clear();
    this.versions.clear();
    this.inFlight.clear();
  }

  /** Notes our write's version of `k`, keeping the last {@link VERSIONS_PER_OBJECT}, newest last. */
  private putVersion(k: string, rv: string, at: number): void {
    const rvs = this.versions.get(k)?.rvs ?? [];
    rvs.push(rv);
    if (rvs.length > VERSIONS_PER_OBJECT) rvs.shift();
    this.versions.delete(k);
    this.versions.set(k, { rvs, at });
    if (this.versions.size < 1024) return;
    const limit = at - this.ttlMs;
    for (const [key, entry] of this.versions) {
      if (entry.at >= limit) return;
      this.versions.delete(key);
    }
  }

  /** Sets an entry at the end of the map, so the map stays in the order of `at` (oldest first). */
  private put(k: string, entry: Entry): void {
    this.entries.delete(k);
    this.entries.set(k, entry);
  }

  /**
   * Drops expired entries once there are many (a watch that never delivered them). The map is oldest
   * first, so it stops at the first live entry: a write costs O(1) amortised, not a scan of every pending
   * write (thousands while the watches lag behind a burst of writes).
   */
  private sweep(): void {
    if (this.entries.size < 1024) return;
    const limit = this.now() - this.ttlMs;
    for (const [k, entry] of this.entries) {
      if (entry.at >= limit) return;
      this.entries.delete(k);
    }
  }
}

function id(kind: string, key: string): string {
  return `${kind}\u0000${key}`;
}
