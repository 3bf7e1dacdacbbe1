import { setMaxListeners } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { ReconcileContext } from '../context/reconcile-context.js';
import { InvalidConfigError, isInvalidConfig } from '../errors/invalid-config-error.js';
import type { ObjectClient, WriteFence } from '../kube/object-client.js';
import { ControllerMetrics } from '../observability/controller-metrics.js';
import { EventRecorder } from '../observability/event-recorder.js';
import type { HealthCheck } from '../observability/health-server.js';
import { addProcessMetrics } from '../observability/process-metrics.js';
import type { Logger } from '../observability/logger.js';
import type { WorkQueue } from '../queue/work-queue.js';
import { DEFAULT_PRIORITY, LOW_PRIORITY } from '../queue/priority.js';
import { DEBUG_QUEUED_KEYS, type DebugControllerState } from '../debug/debug-routes.js';
import { HistoryRecorder } from '../debug/history-recorder.js';
import { debugEvent, recordPass } from '../debug/record-pass.js';
import type { PassTrace } from '../context/pass-trace.js';
import { sourceTrigger, TriggerLedger, TRIGGERS, type PassTrigger } from '../debug/pass-trigger.js';
import { jitter } from '../util/jitter.js';
import { sleep } from '../util/sleep.js';
import { CacheSyncTimeoutError } from '../watch/informer.js';
import { CachedReads } from '../watch/cached-reads.js';
import { InformerCache, type InformerSource } from '../watch/informer-cache.js';
import type { Informer } from '../watch/informer.js';
import type { Store } from '../watch/store.js';
import { setEngineContext } from './context-keys.js';
import { isNotFound, retryAfterMs } from '../kube/api-error.js';
import {
  DEFAULT_REMOVED_FINALIZER_MEMORY_MS,
  DEFAULT_RESYNC_JITTER,
  DEFAULT_STUCK_DELETION_MS,
  DEFAULT_STUCK_PASS_MS,
} from './defaults.js';
import { DropInObjects } from './drop-in-objects.js';
import { ensureCrd } from '../kube/ensure-crd.js';
import { ErrorConditionWriter } from './error-condition.js';
import { FailureLedger } from './failure-ledger.js';
import { FailureReporter } from './failure-report.js';
import { hasFinalizer } from './finalizer-patch.js';
import { addFinalizer, removeFinalizer } from './finalizers.js';
import { FlatLogger } from './flat-logger.js';
import { freshChange } from './fresh-change.js';
import { makeClient } from '../kube/make-client.js';
import { loggingWarningHandler } from '../kube/api-warnings.js';
import type { PassBody } from './pass-body.js';
import { PassRunner, type FinalizerOps, type ReconcileOutcome } from './pass-runner.js';
import { RemovedFinalizerMemory } from './removed-finalizer-memory.js';
import type { ResolvedCoreConfig } from './resolve-core-config.js';
import type { FieldIndexSpec } from './core-config.js';
import type { IndexFunc } from '../watch/field-index.js';
import { startRefusedByPlan } from './plan-loading.js';
import { retryWithHints } from './retry-with-hints.js';
import { ShardRun } from './shard-run.js';
import { SourceSet, type FeedHandlers, type SourceHandlers } from './source-set.js';
import { WorkerPool } from './worker-pool.js';

/** How long `stop()` waits for pending Events to be written. */
const EVENT_FLUSH_TIMEOUT_MS = 2_000;

/**
 * What a front end hands the core.
 * @category Engine: Framework and ControllerCore
 */
export interface CoreParts<Obj extends KubernetesObject> {
  /** The resolved generic options (watches and predicates among them). */
  config: ResolvedCoreConfig<Obj>;
  /** The front end's part of each pass. */
  body: PassBody<Obj>;
  /** What log lines call this (`framework`, `controller`). */
  noun: string;
}

/**
 * What a host (an `Operator`, or the implicit host of a front end started alone) gives the controllers it
 * runs (see {@link ControllerCore.joinHost}).
 * @category Engine: Framework and ControllerCore
 */
export interface SharedResources {
  /** The host's registry: every controller's metrics go there. */
  registry: Registry;
  /** The host's informer cache (undefined: the controller's own, or `config.informers`). */
  informers: InformerCache | undefined;
  /** The host holds the Lease: workers run only between `startWorkers` and `stopWorkers`. */
  externalLeadership: boolean;
  /** The host's live-view history (undefined: the controller's own, if its `debugPage` is on). */
  history?: HistoryRecorder | undefined;
  /**
   * Awaited by `stop()` once in-flight passes drained, before the watches and the client close: the
   * implicit host releases its Lease there, so a successor starts while this replica's client still works.
   */
  released?: () => Promise<void>;
}

/**
 * The engine every front end shares: watches (through an InformerCache), caches, the per-key work queue
 * and its workers, resync, pause, finalizers, deletion memory, retries (rate limiter or RetryPolicy),
 * TerminalError, error condition, Events, metrics, timeout and graceful shutdown. A front end supplies only
 * a {@link PassBody}. The health server, the live view's server and the Lease belong to a host (`Host` in
 * lib/host: an `Operator`, or the implicit host of a front end started alone), joined before start
 * ({@link joinHost}). See docs/architecture.md.
 * @category Engine: Framework and ControllerCore
 */
export class ControllerCore<Obj extends KubernetesObject = KubernetesObject> {
  readonly config: ResolvedCoreConfig<Obj>;
  readonly client: ObjectClient | undefined;
  /** The client of every reconcile context: `client` with reads from the informer cache (config.liveReads). */
  private readClient: ObjectClient | undefined;
  private reads: CachedReads | undefined;
  readonly logger: Logger;
  /** What log lines call this (`framework`, `controller`). */
  readonly noun: string;
  private readonly parts: CoreParts<Obj>;
  private controllerMetrics!: ControllerMetrics;
  private runner!: PassRunner<Obj>;
  private readonly memory: RemovedFinalizerMemory;
  /** Keys waiting out a server's Retry-After, until when (Date.now()). */
  private readonly throttledUntil = new Map<string, number>();
  private readonly events: EventRecorder | undefined;
  private readonly errorConditions: ErrorConditionWriter | undefined;
  private readonly objects = new DropInObjects<Obj>();
  private readonly ledger = new FailureLedger();
  /** Objects the engine's own finalizer patch produced, until the watch delivers them. */
  private readonly ownPatches = new Map<string, Obj>();
  private sources: SourceSet<Obj> | undefined;
  private pool!: WorkerPool;
  /** The registry every metric of this controller goes to: `config.registry`, or its host's. */
  private registry: Registry;
  private externalLeadership = false;
  /** Set by joinHost (once, before start). */
  private hosted = false;
  private released: (() => Promise<void>) | undefined;
  /** The host's Lease fence (see {@link useFence}). */
  private sharedFence: WriteFence | undefined;
  private sharedInformers: InformerCache | undefined;
  private readonly lifetime = new AbortController();
  private historyRecorder: HistoryRecorder | undefined;
  /** Why each waiting key was enqueued (noted only while `history` is set). */
  private readonly triggers = new TriggerLedger();
  private resyncTimer: NodeJS.Timeout | undefined;
  /** Field indexes added with `indexField` (registered again when a host's cache replaces ours). */
  private readonly addedIndexes: FieldIndexSpec[] = [];
  private informerCacheInUse: InformerCache | undefined;
  private startPromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private isSynced = false;
  /** The sharding option's run: membership, sharder candidacy, drain (undefined when not sharded). */
  private shardRun: ShardRun | undefined;
  /**
   * Sharded: keys whose object left this replica's watch, with its last state. A filtered watch says
   * DELETED both for a deleted object and for one moved to another shard; the pass asks the server which.
   */
  private readonly departures = new Map<string, Obj>();
  private crdEnsured = false;

  constructor(parts: CoreParts<Obj>) {
    this.parts = parts;
    const c = parts.config;
    this.config = c;
    this.registry = c.registry;
    this.noun = parts.noun;
    if (c.collectDefaultMetrics) addProcessMetrics(c.registry);
    // Long-lived: many concurrent requests (watches, Lease, CRD) listen on it at once; not a leak.
    setMaxListeners(0, this.lifetime.signal);
    this.logger = new FlatLogger(c.logger, { controller: c.name });
    this.client = makeClient(
      c.name,
      c.kubeConfig,
      c.resource !== undefined || c.leaderElection !== false || c.crd !== undefined,
      c.warningHandler === false
        ? undefined
        : (c.warningHandler ?? loggingWarningHandler({ logger: this.logger, registry: this.registry })),
    );
    if (c.finalizer !== false && this.client === undefined) {
      throw new InvalidConfigError(
        'config.finalizer needs an API connection: pass config.kubeConfig (or set KUBECONFIG), or set finalizer: false',
      );
    }
    if (c.finalizer !== false && c.resource === undefined) {
      throw new InvalidConfigError(
        'config.finalizer needs config.resource (the kind whose objects get the finalizer), or set finalizer: false',
      );
    }
    if ((c.leaderElection !== false || c.crd !== undefined) && this.client === undefined) {
      throw new InvalidConfigError(
        'config.leaderElection and config.crd need an API connection: pass config.kubeConfig',
      );
    }
    if (c.debugPage !== false) this.historyRecorder = new HistoryRecorder();
    this.memory = new RemovedFinalizerMemory(
      c.resyncPeriodMs > 0 ? 3 * c.resyncPeriodMs : DEFAULT_REMOVED_FINALIZER_MEMORY_MS,
    );
    if (this.client !== undefined && c.events !== false) {
      this.events = new EventRecorder({
        client: this.client,
        component: c.name,
        logger: this.logger,
        observe: (obj, event, at) => {
          this.historyRecorder?.recordEvent({ controller: c.name, ...debugEvent(obj, event), at });
        },
      });
    }
    if (this.client !== undefined && c.errorCondition !== false) {
      this.errorConditions = new ErrorConditionWriter({
        client: this.client,
        type: c.errorCondition.type,
        ...(c.resource === undefined ? {} : { resource: c.resource }),
        logger: this.logger,
      });
    }
    this.wire();
  }

  /** Builds the parts bound to the registry and the informer cache (again when joining an Operator). */
  private wire(): void {
    const c = this.config;
    if (this.client !== undefined) {
      const informers =
        this.sharedInformers ??
        c.informers ??
        new InformerCache({
          client: this.client,
          logger: this.logger,
          registry: this.registry,
          keepManagedFields: c.keepManagedFields,
          watchList: c.watchList,
        });
      for (const spec of [...c.indexes, ...this.addedIndexes]) {
        informers.indexField({ apiVersion: spec.apiVersion, kind: spec.kind }, spec.name, spec.fn);
      }
      this.informerCacheInUse = informers;
      const sources = new SourceSet<Obj>(this.logger, informers);
      this.sources = sources;
      this.reads =
        c.liveReads === true
          ? undefined
          : new CachedReads({
              informers,
              client: this.client,
              watched: () => sources.informers(),
              ...(c.resource?.namespace === undefined ? {} : { namespace: c.resource.namespace }),
              ...(c.resource?.namespaces === undefined ? {} : { namespaces: c.resource.namespaces }),
              live: c.liveReads,
              logger: this.logger,
              ...(c.cacheSyncTimeoutMs > 0 ? { syncTimeoutMs: c.cacheSyncTimeoutMs } : {}),
            });
      this.readClient = this.reads === undefined ? this.client : this.client.withReader(this.reads);
    }
    this.controllerMetrics = new ControllerMetrics({ registry: this.registry, controller: c.name });
    this.controllerMetrics.setMaxConcurrentReconciles(c.workers);
    this.pool = new WorkerPool({
      name: c.name,
      workers: c.workers,
      minIntervalMs: c.minReconcileIntervalMs,
      order: c.queueOrder,
      rateLimiter: c.rateLimiter,
      registry: this.registry,
      metrics: this.controllerMetrics,
      logger: this.logger,
      process: (queue, key, signal) => this.process(queue, key, signal),
    });
    this.runner = new PassRunner<Obj>({
      body: this.parts.body,
      finalizer: c.finalizer,
      pauseAnnotations: c.pauseAnnotations,
      logger: this.logger,
      metrics: this.controllerMetrics,
      failures: new FailureReporter({
        metrics: this.controllerMetrics,
        events: this.events,
        errorConditions: this.errorConditions,
      }),
      memory: this.memory,
      finalizers: this.finalizerOps(),
      reconcileTimeoutMs: c.reconcileTimeoutMs,
      prepareContext: (ctx, obj) => {
        this.prepareContext(ctx, obj);
      },
    });
  }

  /**
   * Joins a host before start, once: metrics go to its registry, watches to its informer cache (unless
   * `config.informers` was given), its live view records the passes, and with its Lease the workers wait
   * for `startWorkers`. The config is not changed; the parts bound to the registry and the cache are built
   * again only when those differ from the controller's own.
   */
  joinHost(shared: SharedResources): void {
    if (this.startPromise !== undefined) {
      throw new InvalidConfigError(
        `${this.noun} ${this.config.name} was already started: add it to the Operator before starting it`,
      );
    }
    if (this.hosted) {
      throw new InvalidConfigError(
        `${this.noun} ${this.config.name} already runs in a host: add it to one Operator only`,
      );
    }
    this.hosted = true;
    this.externalLeadership = shared.externalLeadership;
    this.released = shared.released;
    if (shared.history !== undefined) this.historyRecorder = shared.history;
    // A host's informers watch the host's cluster: a controller configured for another cluster (its own
    // kubeConfig names another server) keeps informers of its own rather than sharing a watch of the wrong one.
    const hostInformers =
      shared.informers !== undefined &&
      this.client !== undefined &&
      shared.informers.client.transport.server.href !== this.client.transport.server.href
        ? undefined
        : shared.informers;
    const informers = this.config.informers ?? hostInformers;
    if (shared.registry !== this.registry || informers !== this.sharedInformers) {
      this.registry = shared.registry;
      this.sharedInformers = informers;
      this.wire();
    }
  }

  /** Joins an `Operator` before start (see {@link joinHost}). */
  joinOperator(shared: SharedResources): void {
    this.joinHost(shared);
  }

  /** True once joined to a host (an `Operator`, or a front end's implicit host). */
  get inHost(): boolean {
    return this.hosted;
  }

  /** The live view's reconcile history (`debugPage`): the controller's own, or its host's. */
  get history(): HistoryRecorder | undefined {
    return this.historyRecorder;
  }

  /**
   * The engine's `/readyz` checks for a host's health server: caches synced, not stopping, watches healthy,
   * workers not all stuck, no deletion stuck on our finalizer.
   */
  readinessChecks(): Record<string, HealthCheck> {
    const c = this.config;
    return {
      'cache-synced': () => (this.isSynced ? undefined : this.notSyncedReason()),
      'not-stopping': () => (this.stopPromise === undefined ? undefined : 'shutting down'),
      'watches-healthy': () => this.sources?.problem(),
      'workers-stuck': () =>
        this.pool.allStuck(c.reconcileTimeoutMs > 0 ? c.reconcileTimeoutMs : DEFAULT_STUCK_PASS_MS),
      'stuck-deletions': () => this.stuckDeletions(),
    };
  }

  /** The front end's pass body (`plan()` runs it against a dry-run client, one pass per object). */
  get passBody(): PassBody<Obj> {
    return this.parts.body;
  }

  /** The Prometheus registry holding every metric of this controller. */
  get metrics(): Registry {
    return this.registry;
  }

  /** True once every watched kind's first list is in (immediately after start without `resource`). */
  get synced(): boolean {
    return this.isSynced;
  }

  /** True while started, synced and not stopping: it reconciles (or stands by as a follower). */
  get ready(): boolean {
    return this.isSynced && this.stopPromise === undefined && this.sources?.problem() === undefined;
  }

  /** Why the controller is not ready, or undefined when it is. */
  get notReadyReason(): string | undefined {
    if (this.stopPromise !== undefined) return 'shutting down';
    if (!this.isSynced) return this.notSyncedReason();
    return this.sources?.problem();
  }

  /** `caches not synced yet`, with what keeps them from syncing when a list or discovery fails. */
  private notSyncedReason(): string {
    const problem = this.sources?.problem();
    return problem === undefined ? 'caches not synced yet' : `caches not synced yet: ${problem}`;
  }

  /** Sharded: the shard this replica is now (the value of its objects' shard label); undefined otherwise. */
  get shard(): string | undefined {
    return this.shardRun?.shard;
  }

  /** True while this replica runs workers (always, without leader election). */
  get leading(): boolean {
    return this.pool.running;
  }

  /** The cache of a watched kind (see `SourceSet.cache`), or undefined when not watched. */
  cache(kind: string, apiVersion?: string): Store | undefined {
    return this.sources?.cache(kind, apiVersion);
  }

  /**
   * Subscribes a front end's own handlers to a feed through the engine's source set (see
   * `SourceSet.attach`): the same informer cache, sharing and release as the engine's own watches.
   */
  attach<T extends KubernetesObject>(
    feed: { source: InformerSource } | { own: Informer<T> },
    h: FeedHandlers<T>,
  ): { informer: Informer<T>; detach: () => Promise<void> } {
    if (this.sources === undefined) {
      throw new InvalidConfigError(
        `${this.noun} ${this.config.name}: informers need an API connection: pass kubeConfig (or set KUBECONFIG)`,
      );
    }
    return this.sources.attach(feed, h);
  }

  /**
   * Adds field index `name` to the shared cache of `kind` (controller-runtime's `IndexField`); see
   * `InformerCache.indexField`. Call it before `start()` so that mappers and the first passes can use it
   * (later works too: the index is built from what is cached).
   */
  indexField<T extends KubernetesObject = KubernetesObject>(
    kind: { apiVersion: string; kind: string },
    name: string,
    fn: IndexFunc<T>,
  ): void {
    const informers = this.informerCacheInUse;
    if (informers === undefined) {
      throw new InvalidConfigError(
        `${this.noun} ${this.config.name}: field indexes need an API connection: pass kubeConfig (or set KUBECONFIG)`,
      );
    }
    informers.indexField(kind, name, fn);
    this.addedIndexes.push({ apiVersion: kind.apiVersion, kind: kind.kind, name, fn: fn as IndexFunc });
  }

  /** Runs a pass for `key` (deduplicated while it waits; never two at once). */
  enqueue(key: string): void {
    this.note(key, TRIGGERS.enqueue);
    this.pool.add(key);
  }

  /** Informer drop-in: remembers `newObj` and enqueues its key (level-triggered: the latest wins). */
  updateFunc(key: string, newObj: Obj): void {
    const old = this.objects.remembers(key);
    this.objects.remember(key, newObj);
    // As on the watch path: a real change lifts a terminal failure and counts attempts afresh.
    if (this.ledger.failing(key) && fedChange(old, newObj)) {
      this.ledger.reset(key);
      this.throttledUntil.delete(key);
    }
    this.note(key, TRIGGERS.update);
    this.pool.add(key);
  }

  /** Informer drop-in: forgets `obj`; with finalizers off its delete path runs with this last state. */
  deleteFunc(key: string, obj: Obj): void {
    this.objects.gone(key, this.config.finalizer === false ? obj : undefined);
    this.note(key, TRIGGERS.delete);
    this.pool.add(key);
  }

  /** The live view: why `key` was enqueued (the latest reason wins; nothing when the view is off). */
  private note(key: string, trigger: PassTrigger): void {
    if (this.historyRecorder !== undefined) this.triggers.note(key, trigger);
  }

  /** Starts watching and reconciling; resolves once the caches are synced and workers run (or stand by). */
  start(): Promise<void> {
    if (this.stopPromise !== undefined)
      return Promise.reject(new Error(`${this.noun} was stopped; create a new one`));
    if (this.startPromise === undefined) {
      const refused = startRefusedByPlan(`${this.noun} "${this.config.name}".start()`);
      if (refused !== undefined) return Promise.reject(refused);
    }
    const c = this.config;
    if (!this.hosted && (c.healthServer !== false || c.leaderElection !== false)) {
      return Promise.reject(
        new InvalidConfigError(
          `${this.noun} ${c.name}: healthServer and leaderElection are a host's: start the controller through its front end (framework.start()) or an Operator, not its ControllerCore`,
        ),
      );
    }
    this.startPromise ??= this.run().catch(async (err: unknown) => {
      this.logger.error(`${this.noun} failed to start`, { err });
      await this.stop();
      throw err;
    });
    return this.startPromise;
  }

  /** Stops gracefully (see docs/shutdown.md). Idempotent. */
  stop(): Promise<void> {
    this.stopPromise ??= this.shutdown();
    return this.stopPromise;
  }

  /** Starts the workers under `leaderSignal` (external leadership: an Operator's Lease). */
  /**
   * Fences this controller with the operator's Lease (`Operator` with `leaderElection`): every write through
   * its client and every pass step checks the fence, as with a Lease of its own, so a replica resumed after
   * a pause past the renew deadline writes nothing before it knows it still leads.
   */
  useFence(fence: WriteFence): void {
    // A sharded controller is fenced by its own shard Lease, not the host's.
    if (this.config.sharding !== undefined) return;
    this.sharedFence = fence;
    if (this.client !== undefined) this.client.fence = fence;
  }

  startWorkers(leaderSignal: AbortSignal): void {
    if (this.config.sharding !== undefined) return;
    if (this.stopPromise === undefined && this.isSynced) this.pool.start(leaderSignal, this.knownKeys());
  }

  /** Stops the workers at once, aborting in-flight passes (leadership lost). */
  stopWorkers(reason: string): void {
    if (this.config.sharding !== undefined) return;
    this.pool.stopNow(reason);
  }

  private prepareContext(ctx: ReconcileContext, obj: Obj): void {
    const fence = this.sharedFence;
    const events = this.events;
    const signal = this.lifetime.signal;
    setEngineContext(ctx, {
      client: this.readClient ?? this.client,
      cache: (kind, apiVersion) => this.cache(kind, apiVersion),
      stepGate:
        fence === undefined
          ? undefined
          : () => {
              fence.check();
            },
      events:
        events === undefined
          ? undefined
          : (event, about) => {
              events.record(about ?? obj, event, signal);
            },
    });
  }

  /** Ensures the CRD (config.crd) and starts every watch; resolves once all caches are synced. */
  private async syncSources(deadline: AbortSignal, shardSelector?: string): Promise<void> {
    const c = this.config;
    if (this.client !== undefined && c.crd !== undefined && !this.crdEnsured) {
      const client = this.client;
      const crd = c.crd;
      await retryWithHints('ensuring the CustomResourceDefinition', this.logger, deadline, () =>
        ensureCrd(client, crd, this.logger, deadline),
      );
      this.crdEnsured = true;
    }
    if (this.client !== undefined && this.sources !== undefined && c.resource !== undefined) {
      const drain = this.shardRun?.labels.drain;
      const selector = [c.resource.labelSelector, shardSelector].filter((s) => s !== undefined).join(',');
      await this.sources.start(
        this.client,
        {
          resource: shardSelector === undefined ? c.resource : { ...c.resource, labelSelector: selector },
          // Children that follow their owner's shard are watched with the shard's selector too.
          owns:
            shardSelector === undefined || this.shardRun?.childrenFollow !== true
              ? c.owns
              : c.owns.map((owned) => ({
                  ...owned,
                  labelSelector: [owned.labelSelector, shardSelector]
                    .filter((s) => s !== undefined)
                    .join(','),
                })),
          watches: c.watches,
          predicates: c.predicates,
          // The drain label must reach the pass slot whatever the predicates filter.
          ...(drain === undefined
            ? {}
            : {
                bypass: (old: Obj, obj: Obj) =>
                  old.metadata?.labels?.[drain] !== obj.metadata?.labels?.[drain],
              }),
        },
        this.sourceHandlers(),
        deadline,
        c.cacheSyncTimeoutMs,
      );
    }
  }

  private async run(): Promise<void> {
    const c = this.config;
    const signal = this.lifetime.signal;
    const deadline =
      c.cacheSyncTimeoutMs > 0
        ? AbortSignal.any([signal, AbortSignal.timeout(c.cacheSyncTimeoutMs)])
        : signal;
    try {
      if (c.sharding !== undefined) {
        await this.startSharded(deadline);
        return;
      }
      await this.syncSources(deadline);
    } catch (err) {
      // The sync deadline (not stop()) ended the wait: say which kinds did not sync and why, not a bare TimeoutError.
      if (signal.aborted || !deadline.aborted || isInvalidConfig(err)) throw err;
      const waiting = this.sources?.unsynced() ?? [];
      const kinds = waiting.map((w) => w.kind);
      if (kinds.length === 0 && c.resource !== undefined) kinds.push(c.resource.kind);
      const failing = waiting.find((w) => w.error !== undefined);
      const last = failing?.error ?? (err instanceof Error ? err : undefined);
      // A failing watch explained, else why the kind could not be resolved (discovery), without the
      // "; retrying" the log line ends with: start() gives up here.
      const problem = failing?.problem ?? this.sources?.problem()?.replace(/; retrying$/, '');
      throw new CacheSyncTimeoutError(kinds.join(', ') || this.noun, c.cacheSyncTimeoutMs, last, problem);
    }
    this.isSynced = true;
    this.scheduleResync();
    if (this.externalLeadership) {
      this.logger.info(`${this.noun} synced; workers start with the host's Lease`);
      return;
    }
    this.pool.start(signal, this.knownKeys());
    this.logger.info(`${this.noun} started`, { workers: c.workers });
  }

  /**
   * Sharded start: joins the shard ring (and campaigns for the sharder); each term of membership watches
   * the reconciled kind with the term's shard selector and runs the workers until the term ends. Resolves
   * once the first term's caches synced and its workers run.
   */
  private async startSharded(deadline: AbortSignal): Promise<void> {
    const c = this.config;
    const sharding = c.sharding;
    if (sharding === undefined || this.client === undefined || c.resource === undefined) return;
    const run = new ShardRun(c.name, sharding, this.client, c.resource, this.logger, this.registry, c.owns);
    this.shardRun = run;
    this.sharedFence = run.fence;
    this.client.fence = run.fence;
    let terms = 0;
    const joined = run.start({
      startTerm: async (selector, term) => {
        if (this.stopPromise !== undefined) return;
        const first = terms++ === 0;
        if (!first) await this.sources?.stop();
        await this.syncSources(
          first
            ? AbortSignal.any([deadline, term.signal])
            : AbortSignal.any([this.lifetime.signal, term.signal]),
          selector,
        );
        if (term.signal.aborted || this.stopping()) return;
        this.isSynced = true;
        if (first) this.scheduleResync();
        this.pool.start(AbortSignal.any([this.lifetime.signal, term.signal]), this.knownKeys());
        this.shardRun?.owned(this.sources?.primary?.keys().length ?? 0);
        this.logger.info(`${this.noun} started as shard ${term.shard}`, { workers: c.workers, selector });
      },
      endTerm: (reason) => {
        this.pool.stopNow(reason);
      },
      // Keys adopted from a released shard reach the queue as this shard's own objects' events do.
      adoptedChanged: (key, obj, old) => {
        this.sourceHandlers().changed(key, obj as Obj, old as Obj | undefined, false, false);
      },
      adoptedDeleted: (key, obj) => {
        // Relabelled to this shard: its own watch has it (or will: the move is told from a delete).
        if (this.sources?.primary?.get(key) !== undefined) return;
        this.sourceHandlers().deleted(key, obj as Obj);
      },
    });
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        reject(deadline.reason instanceof Error ? deadline.reason : new Error(`${this.noun} stopped`));
      };
      if (deadline.aborted) onAbort();
      deadline.addEventListener('abort', onAbort, { once: true });
      joined.then(
        () => {
          deadline.removeEventListener('abort', onAbort);
          resolve();
        },
        (err: unknown) => {
          deadline.removeEventListener('abort', onAbort);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }

  /**
   * Sharded: whether the pass of `key` may run. A drained object is let go here, in the key's pass slot
   * (so never while a pass of it runs); an object that left the watch is looked up on the server — gone
   * means deleted (the delete path runs), still there means moved to another shard (nothing runs: its
   * new shard reconciles it, finalizer and all).
   */
  private async shardGate(
    run: ShardRun,
    queue: WorkQueue,
    key: string,
    signal: AbortSignal,
  ): Promise<boolean> {
    const resource = this.config.resource;
    const client = this.client;
    if (resource === undefined || client === undefined) return true;
    const cached = this.sources?.primary?.get(key) ?? (run.adoptedObject(key) as Obj | undefined);
    if (cached !== undefined) {
      const verdict = run.verdict(cached);
      if (verdict === 'mine') return true;
      if (verdict === 'acknowledge') {
        try {
          await run.acknowledge(resource, cached, signal);
        } catch (err) {
          if (!signal.aborted) {
            this.logger.warn('could not let a drained object go; retrying', { err, object: key });
            queue.addRateLimited(key);
          }
          return false;
        }
        this.letGo(queue, key);
      }
      return false;
    }
    const last = this.departures.get(key);
    if (last === undefined) return true;
    let live: Obj | undefined;
    try {
      live = await client.get<Obj>(
        {
          apiVersion: resource.apiVersion,
          kind: resource.kind,
          ...(resource.plural === undefined ? {} : { plural: resource.plural }),
          ...(last.metadata?.namespace === undefined ? {} : { namespace: last.metadata.namespace }),
          name: last.metadata?.name ?? '',
        },
        { signal },
      );
    } catch (err) {
      if (!isNotFound(err)) {
        if (!signal.aborted) {
          this.logger.warn('could not tell a deleted object from a moved one; retrying', {
            err,
            object: key,
          });
          queue.addRateLimited(key);
        }
        return false;
      }
    }
    // Back in this shard's watch meanwhile: its own event runs it.
    if (
      this.sources?.primary?.get(key) !== undefined ||
      run.adoptedObject(key) !== undefined ||
      this.departures.get(key) !== last
    )
      return false;
    this.departures.delete(key);
    if (live === undefined || live.metadata?.uid !== last.metadata?.uid) {
      // Deleted: the delete path, as without sharding.
      this.throttledUntil.delete(key);
      this.objects.gone(key, this.config.finalizer === false ? last : undefined);
      this.ledger.reset(key);
      this.ownPatches.delete(key);
      return true;
    }
    this.letGo(queue, key);
    return false;
  }

  /** Whether stop() was called (read afresh: it changes across awaits). */
  private stopping(): boolean {
    return this.stopPromise !== undefined;
  }

  /** Sharded: `key` belongs to another shard now; drop what this replica kept for it. */
  private letGo(queue: WorkQueue, key: string): void {
    queue.forget(key);
    this.ledger.reset(key);
    this.throttledUntil.delete(key);
    this.ownPatches.delete(key);
    this.objects.gone(key, undefined);
    this.parts.body.forget?.(key);
  }

  private sourceHandlers(): SourceHandlers<Obj> {
    const filtering = this.config.retryPolicy !== undefined;
    return {
      changed: (key, obj, old, initial, own) => {
        this.objects.seen(key, obj.metadata?.uid);
        if (this.shardRun !== undefined) {
          this.departures.delete(key);
          this.shardRun.owned(this.sources?.primary?.keys().length ?? 0);
        }
        if (this.ledger.failing(key)) {
          // A failing key waits for its retry (or, given up or terminal, for a real change): a status
          // write (our own error condition among them) is not a reason to run it again early.
          if (!freshChange(old, obj)) {
            if (filtering || this.ledger.isTerminal(key)) return;
            if ((this.throttledUntil.get(key) ?? 0) > Date.now()) return;
          } else {
            this.ledger.reset(key);
            this.throttledUntil.delete(key);
          }
        }
        this.note(key, old === undefined ? TRIGGERS.add : TRIGGERS.update);
        // The first list, an update that changed nothing (a relist), one that changed only the status
        // (the operator's own status write, most often: its no-op pass must not run ahead of objects not yet
        // reconciled once) and one that shows the controller's own write (an annotation on an object without
        // a generation, say) is background work; a new object or a spec/metadata change is a user's.
        const background = initial || own || (old !== undefined && !freshChange(old, obj));
        this.pool.add(key, background ? LOW_PRIORITY : DEFAULT_PRIORITY);
      },
      deleted: (key, obj) => {
        if (this.shardRun !== undefined) {
          // Deleted, or moved to another shard: the pass finds out which before acting.
          this.departures.set(key, obj);
          this.shardRun.owned(this.sources?.primary?.keys().length ?? 0);
          this.note(key, TRIGGERS.delete);
          this.pool.add(key);
          return;
        }
        this.throttledUntil.delete(key);
        this.objects.gone(key, this.config.finalizer === false ? obj : undefined);
        this.ledger.reset(key);
        this.ownPatches.delete(key);
        this.note(key, TRIGGERS.delete);
        this.pool.add(key);
      },
      touched: (key, via, event, kind, child, initial, own) => {
        if (this.historyRecorder !== undefined)
          this.triggers.note(key, sourceTrigger(via, event, kind, child));
        // A child's change the controller made itself (its create or update) queues behind others' changes.
        this.pool.add(key, initial || own ? LOW_PRIORITY : DEFAULT_PRIORITY);
      },
      ownWrite: (source, obj, notOurs) => this.reads?.ownWrite(source, obj, notOurs) ?? false,
      sourceError: (source, err) => {
        this.controllerMetrics.observeSourceError(source);
        this.logger.error(`watch source ${source}: event dropped`, { err });
      },
    };
  }

  private async process(queue: WorkQueue, key: string, signal: AbortSignal): Promise<void> {
    // Fencing: no pass starts once the renew deadline passed since the last successful renew (the term
    // ends here and now; the next term enqueues every known key again).
    if (this.sharedFence !== undefined && !fenceOpen(this.sharedFence)) return;
    const trigger = this.historyRecorder === undefined ? undefined : this.triggers.take(key);
    if (this.shardRun !== undefined && !(await this.shardGate(this.shardRun, queue, key, signal))) return;
    let fromStore = this.sources?.primary?.get(key) ?? (this.shardRun?.adoptedObject(key) as Obj | undefined);
    if (this.ownPatches.size > 0 && fromStore !== undefined) fromStore = this.latest(key, fromStore);
    const obj = fromStore ?? this.objects.remembers(key);
    const pending = obj === undefined ? undefined : this.objects.tombstone(key);
    if (pending !== undefined && obj !== undefined && pending.metadata?.uid !== obj.metadata?.uid) {
      await this.cleanUpReplaced(queue, key, pending, signal);
      return;
    }
    const tombstone = obj === undefined ? this.objects.tombstone(key) : undefined;
    if (obj !== undefined && this.ledger.isTerminal(key) && !obj.metadata?.deletionTimestamp) {
      this.logger.debug('failed terminally; waiting for the object to change', { object: key });
      return;
    }
    const attempt = this.ledger.attempt(key);
    const history = this.historyRecorder;
    if (history === undefined || trigger === undefined) {
      const outcome = await this.runner.reconcile(key, obj, tombstone, attempt, signal);
      this.act(queue, key, obj, fromStore, tombstone, outcome, signal);
      return;
    }
    const startedAt = Date.now();
    // Step durations and patch parts only while someone looks (they are what the history costs).
    const trace: PassTrace | undefined = history.wantsDetail(startedAt)
      ? { resources: [], dropped: 0 }
      : undefined;
    const outcome = await this.runner.reconcile(key, obj, tombstone, attempt, signal, trace);
    this.act(queue, key, obj, fromStore, tombstone, outcome, signal);
    if (outcome.result === 'success' && obj === undefined) {
      history.forget(this.config.name, key);
      return;
    }
    const again = queue.dueAt(key);
    // The next pass's reason, unless an event during this one already gave it one.
    if (again !== undefined) {
      this.triggers.noteIfNone(key, outcome.result === 'error' ? TRIGGERS.retry : TRIGGERS.requeue);
    } else if (outcome.result === 'success' && outcome.added !== undefined) {
      this.triggers.noteIfNone(key, TRIGGERS.finalizer);
    }
    recordPass(history, this.config.name, key, startedAt, attempt, obj, outcome, again, trigger, trace);
  }

  /** The queue, ledger and condition actions after one pass. */
  private act(
    queue: WorkQueue,
    key: string,
    obj: Obj | undefined,
    fromStore: Obj | undefined,
    tombstone: Obj | undefined,
    outcome: ReconcileOutcome,
    signal: AbortSignal,
  ): void {
    switch (outcome.result) {
      case 'success':
        queue.forget(key);
        this.ledger.reset(key);
        this.throttledUntil.delete(key);
        if (outcome.added === undefined) this.errorConditions?.succeeded(key, signal);
        if (outcome.tombstoneDone === true) {
          if (tombstone !== undefined) this.objects.tombstoneDone(key, tombstone);
          if (obj === undefined) this.parts.body.forget?.(key);
        }
        if (outcome.added !== undefined) {
          if (fromStore === undefined) {
            // Without a watch on this object nobody else would deliver the patched version.
            this.objects.remember(key, outcome.added as Obj);
            queue.add(key);
          } else if (this.config.predicates.length > 0) {
            // A predicate may filter the watch event of our own patch: run the next pass ourselves.
            this.ownPatches.set(key, outcome.added as Obj);
            queue.add(key);
          }
        }
        return;
      case 'requeue_after':
        queue.forget(key);
        this.ledger.reset(key);
        this.errorConditions?.succeeded(key, signal);
        queue.addAfter(key, outcome.delayMs);
        return;
      case 'requeue':
        queue.addRateLimited(key);
        return;
      case 'error':
        // The runner logged it, posted the Warning Event and wrote the error condition.
        this.retry(queue, key, outcome.error, outcome.terminal);
        return;
      case 'aborted':
        return;
    }
  }

  /**
   * The delete path of an object whose name was re-created before its delete pass ran (tombstone keyed by
   * uid), then the new object's pass (enqueued again).
   */
  private async cleanUpReplaced(
    queue: WorkQueue,
    key: string,
    tombstone: Obj,
    signal: AbortSignal,
  ): Promise<void> {
    const outcome = await this.runner.reconcile(key, undefined, tombstone, this.ledger.attempt(key), signal);
    switch (outcome.result) {
      case 'success':
        if (outcome.tombstoneDone === true) this.objects.tombstoneDone(key, tombstone);
        this.ledger.reset(key);
        queue.forget(key);
        queue.add(key);
        return;
      case 'requeue_after':
        queue.addAfter(key, outcome.delayMs);
        return;
      case 'requeue':
        queue.addRateLimited(key);
        return;
      case 'error':
        this.retry(queue, key, outcome.error, outcome.terminal);
        return;
      case 'aborted':
        return;
    }
  }

  /** After a failed pass: retry per the RetryPolicy, else the rate limiter; terminal errors wait. */
  private retry(queue: WorkQueue, key: string, error: unknown, terminal: boolean): void {
    const attempt = this.ledger.failed(key, terminal);
    if (terminal) {
      queue.forget(key);
      return;
    }
    const policy = this.config.retryPolicy;
    const hinted = retryAfterMs(error);
    if (policy === undefined && hinted !== undefined) {
      // The server said when to come back (429/503 Retry-After): not sooner than that, not even for
      // a status write of ours (only a real change of the object runs it earlier).
      this.throttledUntil.set(key, Date.now() + hinted);
      queue.addAfter(key, hinted);
      return;
    }
    this.throttledUntil.delete(key);
    if (policy === undefined) {
      queue.addRateLimited(key);
      return;
    }
    let decision;
    try {
      decision = policy(error, attempt);
    } catch (err) {
      this.logger.error('retryPolicy threw; using the per-key backoff', { err, object: key });
      queue.addRateLimited(key);
      return;
    }
    if (decision.retry && Number.isFinite(decision.delayMs) && decision.delayMs >= 0) {
      queue.addAfter(key, decision.delayMs);
    } else {
      queue.forget(key);
      this.logger.warn('retry policy gave up; waiting for the object to change', { object: key, attempt });
    }
  }

  /** This controller's row of the live view. */
  debugState(): DebugControllerState {
    return {
      name: this.config.name,
      synced: this.isSynced,
      leading: this.pool.running,
      ready: this.notReadyReason === undefined,
      ...this.pool.snapshot(),
      running: this.pool.runningKeys(),
      queued: this.queuedKeys(),
      ...(this.shardRun === undefined ? {} : { shard: this.shardState(this.shardRun) }),
    };
  }

  /** The live view's shard field: which objects this replica owns, and the sharder's assignment. */
  private shardState(run: ShardRun): NonNullable<DebugControllerState['shard']> {
    const assignment = run.assignment();
    return {
      id: run.shard ?? '',
      owned: this.sources?.primary?.keys().length ?? 0,
      sharder: run.isSharder,
      ...(assignment === undefined ? {} : { assignment: Object.fromEntries(assignment) }),
    };
  }

  /** Waiting keys for the live view: the next to run first (higher priority, then the order noted). */
  private queuedKeys(): { key: string; trigger: PassTrigger; priority?: number }[] {
    const waiting = this.triggers
      .waiting(this.triggers.size)
      .map((q): { key: string; trigger: PassTrigger; priority?: number } => {
        const priority = this.pool.priorityOf(q.key);
        return priority === undefined ? q : { ...q, priority };
      });
    waiting.sort((a, b) => (b.priority ?? LOW_PRIORITY) - (a.priority ?? LOW_PRIORITY));
    return waiting.slice(0, DEBUG_QUEUED_KEYS);
  }

  /** Keys Terminating with our finalizer for longer than DEFAULT_STUCK_DELETION_MS (readiness). */
  private stuckDeletions(): string | undefined {
    const finalizer = this.config.finalizer;
    const store = this.sources?.primary;
    if (finalizer === false || store === undefined) return undefined;
    const now = Date.now();
    const stuck: string[] = [];
    for (const key of store.keys()) {
      const obj = store.get(key);
      const since = obj?.metadata?.deletionTimestamp;
      if (since === undefined || !hasFinalizer(obj, finalizer)) continue;
      const ms = now - new Date(since).getTime();
      if (ms > DEFAULT_STUCK_DELETION_MS) stuck.push(`${key} (${Math.round(ms / 1000)} s)`);
    }
    if (stuck.length === 0) return undefined;
    return `${stuck.length} object(s) Terminating with our finalizer for over ${DEFAULT_STUCK_DELETION_MS / 1000} s: ${stuck.slice(0, 5).join(', ')}`;
  }

  /** The newer of the cached object and our own finalizer patch of it. */
  private latest(key: string, cached: Obj): Obj {
    const patched = this.ownPatches.get(key);
    if (patched === undefined) return cached;
    const finalizer = this.config.finalizer;
    if (
      finalizer === false ||
      hasFinalizer(cached, finalizer) ||
      cached.metadata?.uid !== patched.metadata?.uid ||
      Boolean(cached.metadata?.deletionTimestamp)
    ) {
      this.ownPatches.delete(key);
      return cached;
    }
    return patched;
  }

  private knownKeys(): Set<string> {
    const keys = new Set<string>(this.objects.keys());
    for (const key of this.sources?.primary?.keys() ?? []) keys.add(key);
    return keys;
  }

  private scheduleResync(): void {
    const period = this.config.resyncPeriodMs;
    if (period <= 0 || this.stopPromise !== undefined) return;
    this.resyncTimer = setTimeout(
      () => {
        this.logger.debug('resync: enqueueing every cached object');
        for (const key of this.knownKeys()) {
          this.note(key, TRIGGERS.resync);
          this.pool.add(key, LOW_PRIORITY);
        }
        this.scheduleResync();
      },
      jitter(period, DEFAULT_RESYNC_JITTER),
    );
    this.resyncTimer.unref();
  }

  private async shutdown(): Promise<void> {
    const c = this.config;
    this.logger.info(`stopping ${this.noun}: draining in-flight reconciles`, {
      graceMs: c.gracefulShutdownMs,
    });
    clearTimeout(this.resyncTimer);
    if (await this.pool.close(c.gracefulShutdownMs)) {
      this.logger.warn('grace period over: aborted in-flight reconciles');
    }
    // Sharded: the passes drained, so this shard's objects may move now (its Lease is released).
    await this.shardRun?.stop({
      objects: this.sources?.primary?.list() ?? [],
      children: c.owns.flatMap((owned) => {
        const store = this.sources?.cache(owned.kind, owned.apiVersion);
        return store === undefined ? [] : [{ resource: owned, objects: store.list() }];
      }),
    });
    this.lifetime.abort(new Error(`${this.noun} stopped`));
    await this.released?.();
    await this.reads?.stop();
    await this.sources?.stop();
    const flushDeadline = new AbortController();
    await Promise.race([
      Promise.all([this.events?.flush(), this.errorConditions?.flush()]),
      sleep(EVENT_FLUSH_TIMEOUT_MS, flushDeadline.signal).catch(() => undefined),
    ]);
    flushDeadline.abort();
    this.client?.close();
    this.isSynced = false;
    this.logger.info(`${this.noun} stopped`);
  }

  private finalizerOps(): FinalizerOps<Obj> | undefined {
    const { finalizer, resource, backOffFactory } = this.config;
    const client = this.client;
    if (finalizer === false || client === undefined || resource === undefined) return undefined;
    return {
      add: (obj, signal) => addFinalizer(client, resource, obj, finalizer, backOffFactory, signal),
      remove: (obj, signal) => removeFinalizer(client, resource, obj, finalizer, backOffFactory, signal),
    };
  }
}

/** Whether a write fence lets writes through now (a Lease renewed within its deadline). */
function fenceOpen(fence: WriteFence): boolean {
  try {
    fence.check();
    return true;
  } catch {
    return false;
  }
}

/**
 * `freshChange` for an object fed through `updateFunc`: hand-fed objects often carry no resourceVersion,
 * and then any difference counts as a change.
 */
function fedChange(old: KubernetesObject | undefined, obj: KubernetesObject): boolean {
  if (old?.metadata?.resourceVersion === undefined && obj.metadata?.resourceVersion === undefined) {
    return !isDeepStrictEqual(old, obj);
  }
  return freshChange(old, obj);
}
