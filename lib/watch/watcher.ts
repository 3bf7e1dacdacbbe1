import type { KubernetesObject } from '@kubernetes/client-node';
import { abortableSleep } from '../util/abortable-sleep.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { ApiError, isGone } from '../kube/api-error.js';
import { explainListFailure } from '../kube/explain-api-error.js';
import type { Logger } from '../observability/logger.js';
import { WatcherMetrics } from './metrics.js';
import { Store, objectKey } from './store.js';
import { FailureSummary } from './failure-summary.js';
import { WatchBackoff } from './watch-backoff.js';
import { boundHeapGrowth } from './v8-heap.js';
import { compactObject } from './compact-object.js';
import type { WatchEvent } from './watch-event.js';
import {
  DEFAULT_LIST_PAGE_SIZE,
  DEFAULT_REPLACE_CHUNK_SIZE,
  DEFAULT_WATCH_CLIENT_GRACE_MS,
  DEFAULT_WATCH_TIMEOUT_RANGE_SECONDS,
  type WatcherOptions,
} from './watcher-options.js';

/** A watch that ends this fast without delivering anything counts as a failure (spin protection). */
const MIN_HEALTHY_WATCH_MS = 1_000;

/** The annotation of the BOOKMARK that ends a watch-list's initial events. */
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/**
 * How the watcher's latest initial list was made: streamed through a watch (`sendInitialEvents`), or a
 * paged LIST.
 * @category Watch and cache
 */
export type InitialListMode = 'watch-list' | 'list';

/** A watch-list stream that ended before its initial-events-end bookmark. */
class WatchListIncomplete extends Error {}

/** Marks the per-namespace watchers of a watcher of several namespaces (they leave the synced gauge to it). */
const LANE = Symbol('lane');

/**
 * Keeps a {@link Store} equal to the server's state of one resource and reports every change.
 *
 * Lists (paginated), then watches from the list's resourceVersion, resuming from the last seen version
 * (bookmarks keep it fresh). On 410 Gone it relists and synthesises DELETED for objects that vanished
 * meanwhile. Any other failure (connection refused, 5xx, 403, broken stream) is logged, counted and
 * retried with backoff until `stop()`: the watcher never gives up silently.
 *
 * Warning: a delete can still be observed only as a synthesised DELETED carrying the last cached state;
 * use finalizers when a deletion must run code.
 * @category Watch and cache
 */
export class Watcher<T extends KubernetesObject = KubernetesObject> {
  readonly store: Store<T>;
  private readonly options: WatcherOptions<T>;
  /** Drop metadata.managedFields from arriving objects (WatcherOptions.keepManagedFields false). */
  private readonly strip: boolean;
  private readonly logger: Logger;
  private readonly metrics: WatcherMetrics | undefined;
  private readonly label: string;
  private readonly eventHandlers: ((e: WatchEvent<T>) => void)[] = [];
  private readonly syncedHandlers: (() => void)[] = [];
  private readonly random: () => number;
  private controller: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private resourceVersion: string | undefined;
  private syncedValue = false;
  private lastError: Error | undefined;
  private readonly failures: FailureSummary;
  /** False once the server refused watch-list (or its option is off): initial lists are paged LISTs. */
  private watchListServed: boolean;
  private initialListMode: InitialListMode | undefined;
  /** With `resource.namespaces`: one watcher per namespace, all writing this watcher's store. */
  private readonly lanes: Watcher<T>[] = [];
  private readonly lane: boolean;

  constructor(options: WatcherOptions<T>) {
    this.options = options;
    this.store = options.store ?? new Store<T>();
    this.strip = options.keepManagedFields !== true;
    this.label = options.name ?? `${options.resource.apiVersion}/${options.resource.kind}`;
    this.logger = options.logger.child({ watcher: this.label });
    this.failures = new FailureSummary(this.logger);
    this.metrics = options.metrics ?? (options.registry ? WatcherMetrics.for(options.registry) : undefined);
    this.metrics?.init(this.label);
    this.random = options.random ?? Math.random;
    this.watchListServed = options.watchList !== false;
    this.lane = (options as { [LANE]?: boolean })[LANE] === true;
    const namespaces = options.resource.namespaces;
    if (namespaces !== undefined) {
      if (options.resource.namespace !== undefined) {
        throw new InvalidConfigError(
          `watch of ${this.label}: give namespace or namespaces, not both (namespaces: several, one watch each)`,
        );
      }
      if (namespaces.length === 0 || new Set(namespaces).size !== namespaces.length) {
        throw new InvalidConfigError(
          `watch of ${this.label}: namespaces must be a non-empty list of distinct namespaces; got ${JSON.stringify(namespaces)}`,
        );
      }
      for (const namespace of namespaces) {
        const { namespaces: _all, ...resource } = options.resource;
        const lane = new Watcher<T>({
          ...options,
          resource: { ...resource, namespace },
          store: this.store,
          logger: options.logger.child({ namespace }),
          name: this.label,
          ...(this.metrics === undefined ? {} : { metrics: this.metrics }),
          [LANE]: true,
        } as WatcherOptions<T>);
        lane.onEvent((e) => {
          this.emit(e, false);
        });
        lane.onSynced(() => {
          if (this.lanes.every((l) => l.synced)) this.markSynced();
        });
        this.lanes.push(lane);
      }
    }
  }

  /**
   * How the latest initial list (the first one, or one after 410 Gone) was made: `'watch-list'` (streamed,
   * `sendInitialEvents`) or `'list'` (paged LIST: the option is off, or the server refused watch-list).
   * Undefined before the first one is in.
   */
  get initialList(): InitialListMode | undefined {
    if (this.lanes.length === 0) return this.initialListMode;
    const modes = this.lanes.map((l) => l.initialList);
    if (modes.includes(undefined)) return undefined;
    return modes.includes('list') ? 'list' : 'watch-list';
  }

  /** What this watcher lists and watches: kind, namespace or namespaces (neither: all) and selectors. */
  get resource(): WatcherOptions<T>['resource'] {
    return this.options.resource;
  }

  /** True once the first list is in the store (stays true across relists). */
  get synced(): boolean {
    return this.syncedValue;
  }

  /** The last list/watch error, cleared by the next successful list or watch. */
  get lastSyncError(): Error | undefined {
    for (const lane of this.lanes) if (lane.lastSyncError !== undefined) return lane.lastSyncError;
    return this.lastError;
  }

  /**
   * {@link lastSyncError} explained for a person: the kind, the namespace, the status code and what to fix
   * (e.g. the RBAC rule to grant); undefined while nothing fails. What the log line and `/readyz` say.
   */
  get lastSyncProblem(): string | undefined {
    for (const lane of this.lanes) if (lane.lastSyncError !== undefined) return lane.lastSyncProblem;
    return this.lastError === undefined ? undefined : this.explain(this.lastError);
  }

  private explain(err: unknown): string {
    const { apiVersion, kind, plural, namespace } = this.options.resource;
    return explainListFailure(err, { apiVersion, kind, plural, namespace });
  }

  /**
   * The resourceVersion the next watch resumes from (undefined: the next attempt lists). Of several
   * namespaces: the first namespace's.
   */
  get lastResourceVersion(): string | undefined {
    return this.lanes.length === 0 ? this.resourceVersion : this.lanes[0]?.lastResourceVersion;
  }

  /** Calls `handler` for every change, after the store is updated. Handler errors are logged, not fatal. */
  onEvent(handler: (e: WatchEvent<T>) => void): void {
    this.eventHandlers.push(handler);
  }

  /** Calls `handler` once, when the first list is in (at once, asynchronously, if already synced). */
  onSynced(handler: () => void): void {
    if (this.syncedValue) queueMicrotask(handler);
    else this.syncedHandlers.push(handler);
  }

  /** Starts listing and watching in the background. Idempotent. */
  start(): void {
    if (this.loop !== undefined) return;
    // An initial list would grow V8's young generation to 32 MiB for good (see boundHeapGrowth).
    boundHeapGrowth();
    this.controller = new AbortController();
    if (this.lanes.length > 0) {
      for (const lane of this.lanes) lane.start();
      this.loop = Promise.resolve();
      return;
    }
    this.loop = this.run(this.controller.signal);
  }

  /** Stops: aborts the open request and resolves once nothing of this watcher runs any more. */
  async stop(): Promise<void> {
    this.controller?.abort();
    await Promise.all(this.lanes.map((lane) => lane.stop()));
    await this.loop;
    this.loop = undefined;
  }

  private async run(signal: AbortSignal): Promise<void> {
    const backoff = new WatchBackoff(this.options.backoff, this.random);
    while (!signal.aborted) {
      let delay = 0;
      try {
        const started = Date.now();
        const onProgress = (): void => {
          backoff.healthy();
          this.failures.recovered();
        };
        let delivered: boolean;
        if (this.resourceVersion === undefined && this.watchListServed) {
          delivered = await this.streamList(signal, onProgress);
        } else {
          if (this.resourceVersion === undefined) {
            await this.relist(signal);
            this.failures.recovered();
          }
          backoff.healthy();
          delivered = await this.watchOnce(signal, onProgress);
        }
        this.lastError = undefined;
        if (!delivered && Date.now() - started < MIN_HEALTHY_WATCH_MS) delay = backoff.next();
      } catch (e) {
        if (isAborted(signal)) break;
        if (isGone(e)) {
          this.logger.info('watch resourceVersion expired (410 Gone); relisting', {
            resourceVersion: this.resourceVersion,
          });
          this.resourceVersion = undefined;
          continue;
        }
        const err = e instanceof Error ? e : new Error(String(e));
        this.lastError = err;
        delay = backoff.next();
        this.metrics?.restarts.inc({ resource: this.label });
        this.failures.failed(err, delay, this.explain(e), !this.syncedValue);
      }
      if (delay > 0) await abortableSleep(delay, signal);
    }
  }

  /**
   * The initial list as a watch-list: one watch with `sendInitialEvents=true` streams the current objects as
   * ADDED events, ended by a BOOKMARK annotated `k8s.io/initial-events-end`; the store is then made equal to
   * them (as after a LIST) and the same stream goes on as the watch. A server that refuses it (400/422:
   * kube-apiserver before 1.27, or with its WatchList gate off) or ends the stream before the end mark gets
   * a paged LIST instead, now and from then on. Resolves like {@link watchOnce}.
   */
  private async streamList(signal: AbortSignal, onProgress: () => void): Promise<boolean> {
    try {
      return await this.watchOnce(signal, onProgress, true);
    } catch (e) {
      if (isAborted(signal)) throw e;
      const refused = e instanceof ApiError && (e.code === 400 || e.code === 422);
      // 410 before the end mark: the server ended the stream while it still held initial events (the
      // embedded server ends a watch whose queued bytes pass its per-watch buffer, which a large initial
      // list does) — streaming again would end the same way, so list in pages instead.
      if (!refused && !isGone(e) && !(e instanceof WatchListIncomplete)) throw e;
      this.watchListServed = false;
      this.logger.info('the API server does not stream initial lists (watch-list); listing instead', {
        reason: e instanceof Error ? e.message : String(e),
      });
      await this.relist(signal);
      this.failures.recovered();
      return true;
    }
  }

  /** The first list is in: `synced`, once. */
  private markSynced(): void {
    this.lastError = undefined;
    if (this.syncedValue) return;
    this.syncedValue = true;
    if (!this.lane) this.metrics?.synced.set({ resource: this.label }, 1);
    this.logger.debug('cache synced', {
      objects: this.store.size,
      resourceVersion: this.resourceVersion,
      initialList: this.initialListMode,
    });
    for (const handler of this.syncedHandlers.splice(0)) handler();
  }

  private async relist(signal: AbortSignal): Promise<void> {
    const { client, resource } = this.options;
    this.metrics?.relists.inc({ resource: this.label });
    const items: T[] = [];
    let listRv = '';
    let token: string | undefined;
    for (let restarted = false; ;) {
      try {
        const page = await client.list<T>(resource, {
          labelSelector: resource.labelSelector,
          fieldSelector: resource.fieldSelector,
          limit: this.options.pageSize ?? DEFAULT_LIST_PAGE_SIZE,
          continue: token,
          signal,
          ...(resource.metadataOnly === true ? { metadataOnly: true } : {}),
        });
        // Dropped as each page arrives, so a large list does not hold every object's managedFields at once.
        for (const obj of page.items) compactObject(obj, this.strip);
        items.push(...page.items);
        if (token === undefined) listRv = page.metadata.resourceVersion;
        token = page.metadata.continue;
        if (token === undefined) break;
      } catch (e) {
        // An expired continue token: start the list over once (client-go falls back to a full list).
        if (isGone(e) && token !== undefined && !restarted) {
          restarted = true;
          items.length = 0;
          token = undefined;
          continue;
        }
        throw e;
      }
    }
    await this.replace(items, signal);
    this.resourceVersion = listRv;
    this.initialListMode = 'list';
    this.markSynced();
  }

  /**
   * Makes the store equal to `items`, emitting the differences: first the arrivals and changes in the list's
   * order, then the deletions. Yields to the event loop after every {@link WatcherOptions.replaceChunkSize}
   * objects, so a large list does not block timers, I/O and other watches while it is applied (50,000
   * objects took 2.4–2.7 s in one piece). Nothing else of this watcher writes the store meanwhile (a
   * watch-list's later events wait, see {@link watchOnce}); readers may see the list half applied, as
   * they see any list arrive. Rejects when `signal` aborts between chunks.
   */
  private async replace(items: T[], signal: AbortSignal): Promise<void> {
    const chunk = this.replaceChunkSize;
    let budget = chunk;
    const seen = new Set<string>();
    for (const obj of items) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.store.get(key);
      if (old?.metadata?.resourceVersion === obj.metadata?.resourceVersion && old !== undefined) continue;
      this.store.set(obj);
      this.emit(old === undefined ? { type: 'ADDED', object: obj } : { type: 'MODIFIED', object: obj, old });
      if (--budget === 0) {
        budget = chunk;
        await yieldToEventLoop(signal);
      }
    }
    // Only this watcher's namespace: the watchers of several namespaces share one store.
    const namespace = this.options.resource.namespace;
    const keys = namespace === undefined ? this.store.keys() : this.store.list(namespace).map(objectKey);
    for (const key of keys) {
      if (seen.has(key)) continue;
      const old = this.store.delete(key);
      if (old !== undefined) this.emit({ type: 'DELETED', object: old, old });
      if (--budget === 0) {
        budget = chunk;
        await yieldToEventLoop(signal);
      }
    }
  }

  private get replaceChunkSize(): number {
    const size = this.options.replaceChunkSize ?? DEFAULT_REPLACE_CHUNK_SIZE;
    return Number.isSafeInteger(size) && size > 0 ? size : DEFAULT_REPLACE_CHUNK_SIZE;
  }

  /**
   * One watch request; true when it delivered at least one event. Rejects on errors (410 included). With
   * `initial`, a watch-list from no resourceVersion: the initial events are collected until the end mark
   * (rejects with WatchListIncomplete when the stream ends before it).
   */
  private async watchOnce(signal: AbortSignal, onProgress: () => void, initial = false): Promise<boolean> {
    const { client, resource } = this.options;
    const timeoutSeconds = this.timeoutSeconds();
    const local = new AbortController();
    const deadline = setTimeout(
      () => {
        local.abort();
      },
      timeoutSeconds * 1000 + DEFAULT_WATCH_CLIENT_GRACE_MS,
    );
    let delivered = false;
    let collecting = initial;
    const items: T[] = [];
    // While the initial events are applied (in chunks, see replace), the events after the end mark wait
    // here, then go through handle() in their order; a failure then ends this watch like a failing event.
    let applying: Promise<void> | undefined;
    const waiting: [string, T][] = [];
    let applyFailure: { error: unknown } | undefined;
    const onEvent = (type: string, object: T): void => {
      if (applying !== undefined) {
        waiting.push([type, object]);
        return;
      }
      if (!collecting) {
        this.handle(type, object);
        return;
      }
      if (type === 'ADDED') {
        compactObject(object, this.strip);
        items.push(object);
      } else if (type === 'BOOKMARK') {
        if (object.metadata?.annotations?.[INITIAL_EVENTS_END] !== 'true') return;
        collecting = false;
        this.metrics?.relists.inc({ resource: this.label });
        const rv = object.metadata.resourceVersion;
        applying = this.replace(items.splice(0), signal)
          .then(() => {
            this.resourceVersion = rv !== undefined && rv !== '' ? rv : undefined;
            this.initialListMode = 'watch-list';
            this.markSynced();
            for (const [t, o] of waiting.splice(0)) this.handle(t, o);
          })
          .catch((e: unknown) => {
            waiting.length = 0;
            applyFailure = { error: e };
            local.abort();
          })
          .finally(() => {
            applying = undefined;
          });
      } else this.handle(type, object); // ERROR throws; nothing else comes before the end mark
    };
    try {
      await client.watch(
        resource,
        {
          ...(initial ? { sendInitialEvents: true } : { resourceVersion: this.resourceVersion }),
          allowWatchBookmarks: initial ? true : (this.options.bookmarks ?? true),
          timeoutSeconds,
          labelSelector: resource.labelSelector,
          fieldSelector: resource.fieldSelector,
          ...(resource.metadataOnly === true ? { metadataOnly: true } : {}),
          signal: AbortSignal.any([signal, local.signal]),
          // Healthy again as soon as the server answers: a watch resumed after a failure can run for
          // minutes, and readiness (Framework.ready, /readyz) must not wait for it to end.
          onOpen: () => {
            this.lastError = undefined;
          },
        },
        (type, object) => {
          delivered = true;
          onProgress();
          onEvent(type, object as T);
        },
      );
    } finally {
      clearTimeout(deadline);
    }
    await applying;
    if (applyFailure !== undefined) throw applyFailure.error;
    if (collecting && !isAborted(signal)) {
      throw new WatchListIncomplete(
        `the watch-list stream ended after ${String(items.length)} initial events without the ${INITIAL_EVENTS_END} bookmark`,
      );
    }
    return delivered;
  }

  private timeoutSeconds(): number {
    const t = this.options.timeoutSeconds;
    if (typeof t === 'number') return t;
    if (typeof t === 'function') return t();
    const [min, max] = DEFAULT_WATCH_TIMEOUT_RANGE_SECONDS;
    return Math.floor(min + this.random() * (max - min));
  }

  private handle(type: string, object: T): void {
    compactObject(object, this.strip);
    const rv = object.metadata?.resourceVersion;
    switch (type) {
      case 'ADDED':
      case 'MODIFIED': {
        const known = this.store.get(objectKey(object));
        if (known !== undefined && rv !== undefined && known.metadata?.resourceVersion === rv) break; // replayed
        const old = this.store.set(object);
        this.emit(old === undefined ? { type: 'ADDED', object } : { type: 'MODIFIED', object, old });
        break;
      }
      case 'DELETED': {
        const old = this.store.delete(objectKey(object));
        this.emit(old === undefined ? { type: 'DELETED', object } : { type: 'DELETED', object, old });
        break;
      }
      case 'BOOKMARK':
        this.metrics?.events.inc({ resource: this.label, type: 'BOOKMARK' });
        break;
      case 'ERROR': {
        const status = object as unknown as Record<string, unknown>;
        const code = typeof status.code === 'number' ? status.code : 500;
        throw new ApiError({
          code,
          reason: typeof status.reason === 'string' ? status.reason : 'WatchError',
          message: `watch error event: ${typeof status.message === 'string' ? status.message : code}`,
          status,
        });
      }
      default:
        this.logger.warn('ignoring watch event of unknown type', { type });
        return;
    }
    if (rv !== undefined && rv !== '') this.resourceVersion = rv;
  }

  private emit(event: WatchEvent<T>, count = true): void {
    if (count) {
      this.metrics?.events.inc({ resource: this.label, type: event.type });
      this.metrics?.objects.set({ resource: this.label }, this.store.size);
    }
    for (const handler of this.eventHandlers) {
      try {
        handler(event);
      } catch (err) {
        this.logger.error('watch event handler threw; the watch goes on', {
          err,
          key: objectKey(event.object),
        });
      }
    }
  }
}

/** Lets timers and I/O run (setImmediate: after pending I/O callbacks); rejects once `signal` aborted. */
async function yieldToEventLoop(signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
}

/** Reads `signal.aborted` afresh (it changes across awaits; TypeScript narrows it as if it could not). */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}
