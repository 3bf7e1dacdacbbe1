import type { KubernetesObject } from '@kubernetes/client-node';
import type { ObjectClient } from '../kube/object-client.js';
import type { Logger } from '../observability/logger.js';
import type { Informer } from '../watch/informer.js';
import type { InformerCache, InformerSource } from '../watch/informer-cache.js';
import { objectKey, type Store } from '../watch/store.js';
import type { FrameworkResource, OwnedResource } from './core-config.js';
import { ownerKeys } from './owner-keys.js';
import type { Predicate, SourceEvent } from './predicates.js';
import { resolveServedKind } from './resolve-served-kind.js';
import { retryWithHints } from './retry-with-hints.js';
import { mappedKeys, type MapContext, type WatchSource } from './watch-source.js';

/** Longest timer Node accepts (a larger one fires at once); "wait forever" is capped to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Where the sources report, in work-queue keys. */
export interface SourceHandlers<Obj> {
  /**
   * The reconciled object was added or changed (`old`: the previous object on an update); `initial`: the
   * event is part of its watch's first list (the object existed before the controller started).
   */
  changed(key: string, obj: Obj, old: Obj | undefined, initial: boolean, own: boolean): void;
  /** The reconciled object is gone (last known state). */
  deleted(key: string, obj: Obj): void;
  /**
   * An owned or mapped object (`child`, the live view's trigger) changed: this primary needs a pass;
   * `initial`: the event is part of the child watch's first list; `own`: the event shows one of the
   * controller's own writes ({@link ownWrite}).
   */
  touched(
    key: string,
    via: 'owned' | 'mapped',
    event: 'add' | 'update' | 'delete',
    kind: string,
    child: KubernetesObject,
    initial: boolean,
    own: boolean,
  ): void;
  /**
   * Whether `obj`, added or updated in a watch of `source`, is the answer to a write of the controller's
   * own client (asked once per event; absent: never). The `own` of {@link changed} and {@link touched}.
   * An event that came while a write of the object was unanswered may be taken as own provisionally:
   * `notOurs` is called if the answers show it was not (the event is then delivered again, not own).
   */
  ownWrite?(
    source: { apiVersion: string; kind: string },
    obj: KubernetesObject,
    notOurs: () => void,
  ): boolean;
  /** A predicate or mapper failed or returned garbage: logged and counted, the event dropped. */
  sourceError(source: string, error: unknown): void;
}

/** An informer's three events, as a feed subscribes to them. */
export interface FeedHandlers<T> {
  add: (obj: T) => void;
  update: (old: T, obj: T) => void;
  delete: (obj: T) => void;
}

/** Everything a controller watches. */
export interface SourceSpec<Obj extends KubernetesObject> {
  resource: FrameworkResource;
  owns: readonly OwnedResource[];
  watches: readonly WatchSource[];
  predicates: readonly Predicate<Obj>[];
  /** An update of the reconciled object for which this is true is delivered whatever the predicates say. */
  bypass?: (old: Obj, obj: Obj) => boolean;
}

function group(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * Cache key of a kind: group and kind (a core `Service` and a knative `Service` stay apart).
 * @category Engine: Framework and ControllerCore
 */
export function groupKind(apiVersion: string, kind: string): string {
  return `${group(apiVersion)}/${kind}`;
}

/**
 * The watches of one controller: the reconciled kind, owned kinds (→ owner key by ownerReference) and
 * mapped sources (→ keys from `map`), each filtered by its predicates. Informers come from an
 * {@link InformerCache}, so controllers of one process share them; caches are keyed by group and kind,
 * and several (namespace- or label-partitioned) informers may feed one kind.
 */
export class SourceSet<Obj extends KubernetesObject> {
  private readonly byKind = new Map<string, Informer[]>();
  private readonly acquired: Informer[] = [];
  private readonly unsubscribe: (() => void)[] = [];
  private primaryInformer: Informer<Obj> | undefined;
  /** Why resolving the reconciled kind fails while start() retries it (undefined: it does not). */
  private startProblem: string | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly informerCache: InformerCache,
  ) {}

  /** Cache of the reconciled kind (undefined before `start`). */
  get primary(): Store<Obj> | undefined {
    return this.primaryInformer?.store;
  }

  /**
   * Cache of a watched kind: by `kind` and `apiVersion` (group match, any version), or by `kind`
   * alone (the first watched kind of that name). With several partitioned informers for one kind, the
   * first one's store.
   */
  cache(kind: string, apiVersion?: string): Store | undefined {
    if (apiVersion !== undefined) return this.byKind.get(groupKind(apiVersion, kind))?.[0]?.store;
    for (const [gk, list] of this.byKind) if (gk.endsWith(`/${kind}`)) return list[0]?.store;
    return undefined;
  }

  /** Every informer this controller watches with (for reads from its cache). */
  informers(): readonly Informer[] {
    return this.acquired;
  }

  /**
   * The first watch currently failing — or, before the watches start, why the reconciled kind cannot be
   * resolved — as a readiness reason naming the kind, the status code and what to fix.
   */
  problem(): string | undefined {
    if (this.startProblem !== undefined) return this.startProblem;
    for (const list of this.byKind.values()) {
      for (const informer of list) {
        const problem = informer.watcher.lastSyncProblem;
        if (problem !== undefined) return `watch failing: ${problem}`;
      }
    }
    return undefined;
  }

  /**
   * Resolves the reconciled kind (retrying with a clear log line while it is not served), starts every
   * watch and resolves once all caches are synced; rejects when `deadline` aborts or after
   * `syncTimeoutMs` (0 = never).
   */
  async start(
    client: ObjectClient,
    spec: SourceSpec<Obj>,
    handlers: SourceHandlers<Obj>,
    deadline: AbortSignal,
    syncTimeoutMs: number,
  ): Promise<void> {
    const { resource } = spec;
    // Started again (a sharded controller's next term): the previous start's informers were given back.
    this.byKind.clear();
    this.primaryInformer = undefined;
    this.startProblem = undefined;
    const served = (ref: { apiVersion: string; kind: string }) =>
      retryWithHints(
        `watching ${ref.kind} (${ref.apiVersion})`,
        this.logger,
        deadline,
        () => resolveServedKind(client, ref),
        (line) => {
          this.startProblem = line;
        },
      );
    // Owned and mapped kinds are not checked here: their informers may list through another server (the
    // informer cache's); one that never syncs fails start() at the sync timeout, named.
    const passes = filter(spec.predicates, 'primary', handlers);
    const own = (
      source: { apiVersion: string; kind: string },
      obj: KubernetesObject,
      notOurs: () => void,
    ): boolean => handlers.ownWrite?.(source, obj, notOurs) ?? false;
    const watchPrimary = (plural: string): void => {
      const primary = this.add<Obj>({ ...resource, plural });
      this.primaryInformer = primary;
      const changed = (obj: Obj, old: Obj | undefined): void => {
        const key = objectKey(obj);
        const initial = !primary.synced;
        const mine = own(resource, obj, () => {
          handlers.changed(key, obj, old, initial, false);
        });
        handlers.changed(key, obj, old, initial, mine);
      };
      this.subscribe(primary, {
        add: (obj) => {
          if (passes({ type: 'add', object: obj })) changed(obj, undefined);
        },
        update: (old, obj) => {
          if (spec.bypass?.(old, obj) === true || passes({ type: 'update', old, object: obj }))
            changed(obj, old);
        },
        delete: (obj) => {
          if (passes({ type: 'delete', object: obj })) handlers.deleted(objectKey(obj), obj);
        },
      });
    };
    // An owned or mapped kind's feed: each event touches the primaries `keysOf` names; an event taken as the
    // controller's own write that its answers show was not is touched again, as another client's change.
    const childFeed = (
      informer: Informer,
      source: { apiVersion: string; kind: string },
      keysOf: (obj: KubernetesObject) => Iterable<string>,
      via: 'owned' | 'mapped',
      sourcePasses: (event: SourceEvent) => boolean,
    ): void => {
      const touch = (
        obj: KubernetesObject,
        event: 'add' | 'update' | 'delete',
        mine: boolean,
        initial = !informer.synced,
      ): void => {
        for (const key of keysOf(obj)) handlers.touched(key, via, event, source.kind, obj, initial, mine);
      };
      this.subscribe(informer, {
        add: (obj) => {
          if (!sourcePasses({ type: 'add', object: obj })) return;
          const initial = !informer.synced;
          touch(
            obj,
            'add',
            own(source, obj, () => {
              touch(obj, 'add', false, initial);
            }),
          );
        },
        update: (old, obj) => {
          if (!sourcePasses({ type: 'update', old, object: obj })) return;
          const initial = !informer.synced;
          const mine = own(source, obj, () => {
            touch(old, 'update', false, initial);
            touch(obj, 'update', false, initial);
          });
          touch(old, 'update', mine);
          touch(obj, 'update', mine);
        },
        delete: (obj) => {
          if (sourcePasses({ type: 'delete', object: obj })) touch(obj, 'delete', false);
        },
      });
    };
    // With its plural given, the reconciled kind's list and watch start while discovery checks that it is
    // served (one round trip less before the first pass); a kind that is not served still fails start().
    const resolving = served(resource);
    resolving.catch(() => undefined); // awaited below; not unhandled if adding the informer throws first
    if (resource.plural !== undefined) watchPrimary(resource.plural);
    const resolved = await resolving;
    if (resource.plural === undefined) watchPrimary(resolved.plural);
    for (const owned of spec.owns) {
      const ref: InformerSource = { ...owned };
      if (owned.metadataOnly !== true) delete ref.metadataOnly;
      if (ref.namespace === undefined && ref.namespaces === undefined) {
        if (resource.namespace !== undefined) ref.namespace = resource.namespace;
        if (resource.namespaces !== undefined) ref.namespaces = resource.namespaces;
      }
      const informer = this.add(ref);
      childFeed(
        informer,
        owned,
        (obj) => ownerKeys(obj, resource, resolved.namespaced),
        'owned',
        () => true,
      );
    }
    const mapContext: MapContext = { cache: (kind, apiVersion) => this.cache(kind, apiVersion) };
    for (const source of spec.watches) {
      const name = `${source.kind} (${source.apiVersion})`;
      const sourcePasses = filter(source.predicates ?? [], name, handlers);
      const ref: InformerSource = { apiVersion: source.apiVersion, kind: source.kind };
      for (const field of ['plural', 'namespace', 'labelSelector', 'fieldSelector'] as const) {
        const value = source[field];
        if (value !== undefined) ref[field] = value;
      }
      if (source.namespaces !== undefined) ref.namespaces = source.namespaces;
      if (source.metadataOnly === true) ref.metadataOnly = true;
      const informer = this.add(ref);
      childFeed(
        informer,
        source,
        (obj) => {
          let keys: string[] | string;
          try {
            keys = mappedKeys(source.map(obj, mapContext));
          } catch (err) {
            handlers.sourceError(name, err);
            return [];
          }
          if (typeof keys !== 'string') return keys;
          handlers.sourceError(name, new TypeError(keys));
          return [];
        },
        'mapped',
        sourcePasses,
      );
    }
    const timeout = syncTimeoutMs > 0 ? Math.min(syncTimeoutMs, MAX_TIMER_MS) : MAX_TIMER_MS;
    await Promise.all(this.acquired.map((informer) => informer.waitForSync(deadline, timeout)));
  }

  /**
   * Subscribes `h` to one feed — a shared informer of `source` (acquired from the cache) or `own`, an
   * informer of the caller's (started here) — and replays what an already synced informer holds as adds,
   * since it will not list them again. For front ends that manage feeds themselves (per-kind handler
   * lists, feeds added while running); `detach` unsubscribes and gives a shared informer back (an own one
   * is stopped).
   */
  attach<T extends KubernetesObject>(
    feed: { source: InformerSource } | { own: Informer<T> },
    h: FeedHandlers<T>,
  ): { informer: Informer<T>; detach: () => Promise<void> } {
    let informer: Informer<T>;
    if ('own' in feed) {
      informer = feed.own;
      informer.start();
    } else informer = this.add<T>(feed.source);
    let off: (() => void) | undefined = this.subscribe(informer, h);
    if (informer.synced) for (const obj of informer.store.list()) h.add(obj);
    return {
      informer,
      detach: async () => {
        off?.();
        off = undefined;
        if ('own' in feed) {
          await informer.stop();
          return;
        }
        // Already given back when the whole set stopped first.
        const i = this.acquired.indexOf(informer as unknown as Informer);
        if (i < 0) return;
        this.acquired.splice(i, 1);
        await this.informerCache.release(informer as unknown as Informer);
      },
    };
  }

  /**
   * The kinds (`Kind.group`) whose watch has not synced yet, each with its last list error if any and that
   * error explained (kind, namespace, status code, what to fix).
   */
  unsynced(): { kind: string; error: Error | undefined; problem: string | undefined }[] {
    const out: { kind: string; error: Error | undefined; problem: string | undefined }[] = [];
    for (const [gk, list] of this.byKind) {
      const waiting = list.find((informer) => !informer.synced);
      if (waiting === undefined) continue;
      // `group/Kind` (the map's key) as a person writes it: `Kind.group`, or `Kind` for the core group.
      const slash = gk.indexOf('/');
      const kind = slash === 0 ? gk.slice(1) : `${gk.slice(slash + 1)}.${gk.slice(0, slash)}`;
      out.push({ kind, error: waiting.watcher.lastSyncError, problem: waiting.watcher.lastSyncProblem });
    }
    return out;
  }

  /** Stops listening and gives every informer back to the cache (the last user stops the watch). */
  async stop(): Promise<void> {
    for (const off of [...this.unsubscribe]) off();
    const informers = this.acquired.splice(0);
    await Promise.allSettled(informers.map((informer) => this.informerCache.release(informer)));
  }

  private add<T extends KubernetesObject>(ref: InformerSource): Informer<T> {
    const informer = this.informerCache.acquire<T>(ref);
    this.acquired.push(informer as unknown as Informer);
    const gk = groupKind(ref.apiVersion, ref.kind);
    const list = this.byKind.get(gk) ?? [];
    if (!list.includes(informer as unknown as Informer)) list.push(informer as unknown as Informer);
    this.byKind.set(gk, list);
    return informer;
  }

  private subscribe<T extends KubernetesObject>(informer: Informer<T>, h: FeedHandlers<T>): () => void {
    informer.on('add', h.add);
    informer.on('update', h.update);
    informer.on('delete', h.delete);
    const off = (): void => {
      informer.off('add', h.add);
      informer.off('update', h.update);
      informer.off('delete', h.delete);
      const i = this.unsubscribe.indexOf(off);
      if (i >= 0) this.unsubscribe.splice(i, 1);
    };
    this.unsubscribe.push(off);
    return off;
  }
}

/** All predicates of a list as one check; a throwing predicate drops the event and is reported. */
function filter<T extends KubernetesObject>(
  list: readonly Predicate<T>[],
  source: string,
  handlers: SourceHandlers<never>,
): (event: SourceEvent<T>) => boolean {
  if (list.length === 0) return () => true;
  return (event) => {
    try {
      for (const p of list) if (!p(event)) return false;
      return true;
    } catch (err) {
      handlers.sourceError(source, err);
      return false;
    }
  };
}
