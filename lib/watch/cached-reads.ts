import type { KubernetesObject } from '@kubernetes/client-node';
import { ApiError } from '../kube/api-error.js';
import type { CacheReader } from '../kube/cache-reader.js';
import type { ListOptions, ObjectClient, ObjectList } from '../kube/object-client.js';
import type { ObjectRef, ResourceRef } from '../kube/resource-ref.js';
import type { Logger } from '../observability/logger.js';
import { abortableSleep } from '../util/abortable-sleep.js';
import { copyObject } from './copy-object.js';
import type { Informer } from './informer.js';
import type { InformerCache, InformerSource } from './informer-cache.js';
import { labelSelectorMatcher } from './label-selector-match.js';
import { OwnWrites } from './own-writes.js';
import { objectKey } from './store.js';
import { IndexNotFoundError } from './field-index.js';

/**
 * A kind, by API version and name.
 * @category Watch and cache
 */
export interface KindRef {
  apiVersion: string;
  kind: string;
}

/**
 * Options of {@link CachedReads}.
 * @category Watch and cache
 */
export interface CachedReadsOptions {
  /** Where informers for kinds the controller does not watch are started on first read. Required. */
  informers: InformerCache;
  /** Client for discovery (plural and scope of a kind). Required. */
  client: ObjectClient;
  /**
   * The informers the controller already runs (its kind, owned and watched kinds): reads of those kinds
   * are answered from them. Default none.
   */
  watched?: () => readonly Informer[];
  /**
   * Namespace of the informers started on first read. Default: all namespaces. A controller that watches
   * one namespace passes it, and reads of a namespaced kind elsewhere go to the API server.
   */
  namespace?: string;
  /**
   * Namespaces of the informers started on first read (one watch each, one store), instead of `namespace`;
   * reads of a namespaced kind in any other namespace, or across all, go to the API server.
   */
  namespaces?: readonly string[];
  /** Kinds always read from the API server. Default none. */
  live?: readonly KindRef[];
  /** Where a kind that cannot be cached (RBAC forbids list/watch) is reported, once. Default: silent. */
  logger?: Logger;
  /**
   * How long the first read of a kind waits for its informer's first list before asking the API server
   * instead (that read only; later reads try the cache again). Default 2 min, as the cache sync timeout.
   */
  syncTimeoutMs?: number;
}

/** A kind's informer started on first read; undefined once the kind proved uncacheable. */
interface Started {
  informer: Informer | undefined;
  ready: Promise<Informer | undefined>;
}

/** Answers that say "this kind cannot be listed and watched by us": read it live for good. */
const UNCACHEABLE = new Set([401, 403, 404, 405]);

/** How often a first read checks its informer for a permanent list/watch failure. */
const SYNC_POLL_MS = 25;

/**
 * Reads for the client of a reconcile context (controller-runtime's cached client): `get` and `list` are
 * answered from the shared informers — the controller's own for the kinds it watches or owns, and for any
 * other kind one started on first read and kept until {@link stop} — with the client's own writes applied
 * until the watch delivers them (read-your-own-writes, {@link OwnWrites}). Reads hand out copies.
 *
 * Served live (from the API server) instead: kinds in `live`, a namespaced read outside `namespace`, a list
 * with `limit`, `continue`, a `resourceVersion` other than "0", a field selector other than
 * `metadata.name`/`metadata.namespace`, or a label selector this parser does not know, and kinds whose
 * list/watch the server refuses (401, 403, 404, 405: logged once). Staleness: a cached read shows the
 * object as of the last watch event — milliseconds behind the server normally, longer while a watch
 * reconnects; a write made on the stale version fails with 409 Conflict and the pass is retried.
 * @category Watch and cache
 */
export class CachedReads implements CacheReader {
  private readonly o: CachedReadsOptions;
  private readonly own = new OwnWrites();
  private readonly live: Set<string>;
  private readonly started = new Map<string, Started>();
  /** Informers whose events we follow for {@link OwnWrites}, with their unsubscribe functions. */
  private readonly followed = new Map<Informer, () => void>();
  private stopped = false;

  constructor(options: CachedReadsOptions) {
    this.o = options;
    this.live = new Set((options.live ?? []).map((k) => kindId(k.apiVersion, k.kind)));
  }

  /** Number of informers started on first read (for tests and the live view). */
  get startedInformers(): number {
    let n = 0;
    for (const s of this.started.values()) if (s.informer !== undefined) n++;
    return n;
  }

  async get(ref: ObjectRef, signal: AbortSignal | undefined): Promise<KubernetesObject | undefined> {
    const namespaced = await this.namespaced(ref);
    const namespace = namespaced ? ref.namespace : undefined;
    const informer = await this.informerFor(ref, namespace, namespaced, signal);
    if (informer === undefined) return undefined;
    const key = namespace === undefined || namespace === '' ? ref.name : `${namespace}/${ref.name}`;
    const kind = kindId(ref.apiVersion, ref.kind);
    const found = this.own.resolve(kind, key, informer.store.get(key));
    if (found === undefined) throw notFound(ref);
    return copyObject(found);
  }

  async list(ref: ResourceRef, opts: ListOptions): Promise<ObjectList<KubernetesObject> | undefined> {
    if (opts.limit !== undefined || opts.continue !== undefined) return undefined;
    if (opts.resourceVersion !== undefined && opts.resourceVersion !== '0' && opts.resourceVersion !== '') {
      return undefined;
    }
    const labels = opts.labelSelector === undefined ? () => true : labelSelectorMatcher(opts.labelSelector);
    if (labels === undefined) return undefined;
    const fields = fieldSelectorTest(opts.fieldSelector);
    if (fields === undefined) return undefined;
    const namespaced = await this.namespaced(ref);
    const namespace = namespaced && ref.namespace !== '' ? ref.namespace : undefined;
    const informer = await this.informerFor(ref, namespace, namespaced, opts.signal);
    if (informer === undefined) return undefined;
    const kind = kindId(ref.apiVersion, ref.kind);
    const indexed =
      opts.matchingFields === undefined ? undefined : byIndexes(informer, ref.kind, opts.matchingFields);
    const matches = (obj: KubernetesObject): boolean =>
      (namespace === undefined || obj.metadata?.namespace === namespace) &&
      labels(obj.metadata?.labels) &&
      fields(obj);
    const pending = new Set(this.own.keysOf(kind));
    const items: KubernetesObject[] = [];
    for (const obj of indexed?.candidates ?? informer.store.list(namespace)) {
      const key = objectKey(obj);
      const seen = pending.has(key) ? this.own.resolve(kind, key, obj) : obj;
      pending.delete(key);
      if (seen !== undefined && matches(seen) && (seen === obj || (indexed?.test(seen) ?? true))) {
        items.push(copyObject(seen));
      }
    }
    // Our own creates (and writes of objects the index does not hold yet) the cache does not show yet.
    for (const key of pending) {
      const seen = this.own.resolve(kind, key, informer.store.get(key));
      if (seen !== undefined && matches(seen) && (indexed?.test(seen) ?? true)) items.push(copyObject(seen));
    }
    return { items, metadata: { resourceVersion: informer.watcher.lastResourceVersion ?? '' } };
  }

  wrote(obj: KubernetesObject): void {
    const { apiVersion, kind } = obj;
    if (apiVersion === undefined || kind === undefined || this.stopped) return;
    if (this.cachedInformer(apiVersion, kind, obj.metadata?.namespace) === undefined) return;
    this.own.wrote(kindId(apiVersion, kind), objectKey(obj), obj);
  }

  writing(ref: ObjectRef): () => void {
    if (this.stopped) return () => undefined;
    const kind = kindId(ref.apiVersion, ref.kind);
    const key = refKey(ref);
    this.own.writing(kind, key);
    return () => {
      this.own.settled(kind, key);
    };
  }

  /**
   * Whether `obj`, as a watch of kind `ref` delivered it, is the answer to one of this client's writes (its
   * resourceVersion is one the server gave a create, update or patch of ours). True once per version.
   * While a write of the object is unanswered, an unknown version counts as ours until the answers show
   * it was not; then `notOurs` is called (see {@link OwnWrites.ownVersion}).
   */
  ownWrite(ref: { apiVersion: string; kind: string }, obj: KubernetesObject, notOurs?: () => void): boolean {
    const rv = obj.metadata?.resourceVersion;
    if (rv === undefined || this.stopped) return false;
    return this.own.ownVersion(kindId(ref.apiVersion, ref.kind), objectKey(obj), rv, notOurs);
  }

  removed(ref: ObjectRef): void {
    if (this.stopped) return;
    const informer = this.cachedInformer(ref.apiVersion, ref.kind, ref.namespace);
    if (informer === undefined) return;
    const key = refKey(ref);
    // A cluster-scoped kind named with a namespace is stored under its name alone.
    const cached = informer.store.get(key) ?? informer.store.get(ref.name);
    this.own.removed(
      kindId(ref.apiVersion, ref.kind),
      cached === undefined ? key : objectKey(cached),
      cached,
    );
  }

  /** Gives back the informers started on first read and forgets pending writes. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const off of this.followed.values()) off();
    this.followed.clear();
    this.own.clear();
    const started = [...this.started.values()];
    this.started.clear();
    await Promise.allSettled(
      started.map(async (s) => {
        const informer = await s.ready;
        if (informer !== undefined) await this.o.informers.release(informer);
      }),
    );
  }

  /** Whether the kind is namespaced: from `plural` + `namespace` when given (no discovery), else discovery. */
  private async namespaced(ref: ResourceRef): Promise<boolean> {
    if (ref.plural !== undefined) return ref.namespace !== undefined;
    return (await this.o.client.resolve(ref)).namespaced;
  }

  /** An informer (already running, synced or not) that holds every object of the kind in `namespace`. */
  private cachedInformer(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
  ): Informer | undefined {
    const own = this.watchedFor(apiVersion, kind, namespace);
    if (own !== undefined) return own;
    return this.started.get(kindId(apiVersion, kind))?.informer;
  }

  private watchedFor(apiVersion: string, kind: string, namespace: string | undefined): Informer | undefined {
    for (const informer of this.o.watched?.() ?? []) {
      const r = informer.source;
      if (r.apiVersion !== apiVersion || r.kind !== kind) continue;
      if (r.labelSelector !== undefined || r.fieldSelector !== undefined) continue;
      // A metadata-only cache cannot answer a read of whole objects.
      if (r.metadataOnly === true) continue;
      if (r.namespace !== undefined && r.namespace !== namespace) continue;
      if (r.namespaces !== undefined && (namespace === undefined || !r.namespaces.includes(namespace)))
        continue;
      return informer;
    }
    return undefined;
  }

  /** The synced informer that answers reads of `ref` in `namespace`, or undefined to read live. */
  private async informerFor(
    ref: ResourceRef,
    namespace: string | undefined,
    namespaced: boolean,
    signal: AbortSignal | undefined,
  ): Promise<Informer | undefined> {
    if (this.stopped) return undefined;
    const kind = kindId(ref.apiVersion, ref.kind);
    if (this.live.has(kind)) return undefined;
    const own = this.watchedFor(ref.apiVersion, ref.kind, namespace);
    if (own !== undefined) {
      this.follow(own, kind);
      return own.synced ? own : this.synced(own, ref, signal);
    }
    const scope = namespaced ? this.o.namespace : undefined;
    if (scope !== undefined && namespace !== scope) return undefined;
    const scopes = namespaced ? this.o.namespaces : undefined;
    if (scopes !== undefined && (namespace === undefined || !scopes.includes(namespace))) return undefined;
    let started = this.started.get(kind);
    if (started === undefined) {
      const source: InformerSource = { apiVersion: ref.apiVersion, kind: ref.kind };
      if (ref.plural !== undefined) source.plural = ref.plural;
      if (scope !== undefined) source.namespace = scope;
      if (scopes !== undefined) source.namespaces = scopes;
      const informer = this.o.informers.acquire(source);
      this.follow(informer, kind);
      const entry: Started = { informer, ready: Promise.resolve(informer) };
      entry.ready = this.firstSync(informer, ref, entry);
      started = entry;
      this.started.set(kind, entry);
    }
    const informer = await started.ready;
    if (informer === undefined) return undefined;
    return informer.synced ? informer : this.synced(informer, ref, signal);
  }

  /** Waits for a started informer's first list; a permanent refusal makes the kind live for good. */
  private async firstSync(
    informer: Informer,
    ref: ResourceRef,
    entry: Started,
  ): Promise<Informer | undefined> {
    const deadline = Date.now() + (this.o.syncTimeoutMs ?? 120_000);
    while (!informer.synced && !this.stopped) {
      const err = informer.watcher.lastSyncError;
      if (err instanceof ApiError && UNCACHEABLE.has(err.code)) {
        this.o.logger?.warn(
          `reading ${ref.kind} (${ref.apiVersion}) from the API server: its list/watch failed`,
          {
            code: err.code,
            error: err.message,
          },
        );
        entry.informer = undefined;
        this.followed.get(informer)?.();
        this.followed.delete(informer);
        await this.o.informers.release(informer);
        return undefined;
      }
      if (Date.now() > deadline) return informer; // this read goes live; later ones try again
      await abortableSleep(SYNC_POLL_MS);
    }
    return informer;
  }

  /** The informer once synced; undefined (read live) when `signal` aborts or it does not sync in time. */
  private async synced(
    informer: Informer,
    ref: ResourceRef,
    signal: AbortSignal | undefined,
  ): Promise<Informer | undefined> {
    try {
      await informer.waitForSync(signal, this.o.syncTimeoutMs ?? 120_000);
      return informer;
    } catch (err) {
      if (signal?.aborted === true) throw err;
      this.o.logger?.debug(`reading ${ref.kind} live: its cache has not synced`, { error: String(err) });
      return undefined;
    }
  }

  /** Follows an informer's events so that pending writes end once the cache shows them. */
  private follow(informer: Informer, kind: string): void {
    if (this.followed.has(informer)) return;
    const own = this.own;
    const seen = (obj: KubernetesObject): void => {
      own.seen(kind, objectKey(obj), obj, false);
    };
    const update = (_old: KubernetesObject, obj: KubernetesObject): void => {
      own.seen(kind, objectKey(obj), obj, false);
    };
    const deleted = (obj: KubernetesObject): void => {
      own.seen(kind, objectKey(obj), obj, true);
    };
    informer.on('add', seen);
    informer.on('update', update);
    informer.on('delete', deleted);
    this.followed.set(informer, () => {
      informer.off('add', seen);
      informer.off('update', update);
      informer.off('delete', deleted);
    });
  }
}

/**
 * The objects a `matchingFields` list can match (the smallest index set's), and a test of the others for a
 * changed object of our own. Throws {@link IndexNotFoundError} for an index the kind's cache lacks.
 */
function byIndexes(
  informer: Informer,
  kind: string,
  fields: Readonly<Record<string, string>>,
): { candidates: KubernetesObject[]; test: (obj: KubernetesObject) => boolean } {
  const terms = Object.entries(fields);
  const store = informer.store;
  for (const [name] of terms) if (!store.hasIndex(name)) throw new IndexNotFoundError(name, kind);
  let candidates: KubernetesObject[] | undefined;
  for (const [name, value] of terms) {
    const found = store.byIndex(name, value);
    if (candidates === undefined || found.length < candidates.length) candidates = found;
  }
  const sets = terms.map(([name, value]) => new Set(store.byIndex(name, value).map(objectKey)));
  const inAll = (obj: KubernetesObject): boolean => sets.every((set) => set.has(objectKey(obj)));
  return {
    candidates: (candidates ?? store.list()).filter(inAll),
    // An object of our own write is tested against the index functions' view through the store: only
    // objects the index holds under every value count.
    test: inAll,
  };
}

function kindId(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

/**
 * The API server's answer to a get of a missing object, as the cache gives it. Made without a stack trace: a
 * miss is an expected answer (a pass reads its child before creating it, once per new object), and capturing
 * the stack through the pass's async frames cost about 37 µs per miss, 2 % of a reconcile's CPU.
 */
function notFound(ref: ObjectRef): ApiError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return notFoundError(ref);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function notFoundError(ref: ObjectRef): ApiError {
  const resource = ref.plural ?? ref.kind.toLowerCase();
  const message = `${resource} "${ref.name}" not found`;
  return new ApiError({
    code: 404,
    reason: 'NotFound',
    message: `GET ${ref.kind} ${ref.namespace === undefined ? '' : `${ref.namespace}/`}${ref.name} (cache): 404 NotFound: ${message}`,
    status: {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message,
      reason: 'NotFound',
      details: { name: ref.name, kind: resource },
      code: 404,
    },
  });
}

/** A field selector the cache can answer (metadata.name / metadata.namespace), or undefined. */
function fieldSelectorTest(text: string | undefined): ((obj: KubernetesObject) => boolean) | undefined {
  if (text === undefined || text.trim() === '') return () => true;
  const tests: ((obj: KubernetesObject) => boolean)[] = [];
  for (const term of text.split(',')) {
    const m = /^\s*metadata\.(name|namespace)\s*(==|=|!=)\s*([^\s,]*)\s*$/.exec(term);
    if (m === null) return undefined;
    const [, field, op, value] = m;
    const get = (obj: KubernetesObject): string =>
      (field === 'name' ? obj.metadata?.name : obj.metadata?.namespace) ?? '';
    tests.push(op === '!=' ? (obj) => get(obj) !== value : (obj) => get(obj) === value);
  }
  return (obj) => tests.every((t) => t(obj));
}

/** The store key of the object `ref` names (namespace/name, or the name of an object without one). */
function refKey(ref: ObjectRef): string {
  return ref.namespace === undefined || ref.namespace === '' ? ref.name : `${ref.namespace}/${ref.name}`;
}
