import { setMaxListeners } from 'node:events';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import type { ObjectClient } from '../kube/object-client.js';
import { LeaderElector } from '../leader/leader-elector.js';
import { ControllerMetrics } from '../observability/controller-metrics.js';
import { EventRecorder } from '../observability/event-recorder.js';
import { HealthServer } from '../observability/health-server.js';
import type { Logger } from '../observability/logger.js';
import type { WorkQueue } from '../queue/work-queue.js';
import { jitter } from '../util/jitter.js';
import { sleep } from '../util/sleep.js';
import { objectKey, type Store } from '../watch/store.js';
import { cacheKey, clientKey } from './context-keys.js';
import { DEFAULT_REMOVED_FINALIZER_MEMORY_MS, DEFAULT_RESYNC_JITTER } from './defaults.js';
import { ensureCrd } from './ensure-crd.js';
import { ErrorConditionWriter } from './error-condition.js';
import { retryWithHints } from './retry-with-hints.js';
import { WatchSet, type WatchSetHandlers } from './watch-set.js';
import { makeClient } from './make-client.js';
import { handleSignals, type HandleSignalsOptions } from './handle-signals.js';
import type { FrameworkConfig } from './framework-config.js';
import { FlatLogger } from './flat-logger.js';
import { addFinalizer, removeFinalizer } from './finalizers.js';
import { Reconciler } from './reconciler.js';
import { RemovedFinalizerMemory } from './removed-finalizer-memory.js';
import { WorkerPool } from './worker-pool.js';
import { resolveFrameworkConfig, type ResolvedFrameworkConfig } from './resolve-config.js';

/** How long `stop()` waits for pending Events to be written. */
const EVENT_FLUSH_TIMEOUT_MS = 2_000;

/**
 * The engine: watches a kind (and the kinds it owns), keeps the latest object per key in a cache,
 * and runs the object's resource set through a per-key work queue — never two reconciles of one key
 * at once, bursts coalesced, a change during a run gives exactly one more run, errors retried with
 * per-key backoff, finalizers, pause, resync, leader election, metrics, Events and graceful shutdown.
 * See docs/framework.md and docs/guarantees.md.
 */
export class Framework<Obj extends KubernetesObject = KubernetesObject> {
  /** The configuration with every default applied. */
  readonly config: ResolvedFrameworkConfig<Obj>;
  /** API client shared with resources (`ctx.get(clientKey)`); undefined without an API connection. */
  readonly client: ObjectClient | undefined;
  private readonly logger: Logger;
  private readonly controllerMetrics: ControllerMetrics;
  private readonly reconciler: Reconciler<Obj>;
  private readonly memory: RemovedFinalizerMemory;
  private readonly events: EventRecorder | undefined;
  private readonly errorConditions: ErrorConditionWriter | undefined;
  private readonly remembered = new Map<string, Obj>();
  private readonly tombstones = new Map<string, Obj>();
  private readonly watches: WatchSet<Obj>;
  private readonly pool: WorkerPool;
  private readonly lifetime = new AbortController();
  private elector: LeaderElector | undefined;
  private election: Promise<void> | undefined;
  private health: HealthServer | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  private startPromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private isSynced = false;

  constructor(config: FrameworkConfig<Obj>) {
    this.config = resolveFrameworkConfig(config);
    const c = this.config;
    // Long-lived: many concurrent requests (watches, Lease, CRD) listen on it at once; not a leak (R5).
    setMaxListeners(0, this.lifetime.signal);
    this.logger = new FlatLogger(c.logger, { controller: c.name });
    this.client = makeClient(
      c.name,
      c.kubeConfig,
      c.resource !== undefined || c.leaderElection !== false || c.crd !== undefined,
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
    this.watches = new WatchSet<Obj>(this.logger, c.registry);
    this.controllerMetrics = new ControllerMetrics({ registry: c.registry, controller: c.name });
    this.controllerMetrics.setMaxConcurrentReconciles(c.workers);
    this.memory = new RemovedFinalizerMemory(
      c.resyncPeriodMs > 0 ? 3 * c.resyncPeriodMs : DEFAULT_REMOVED_FINALIZER_MEMORY_MS,
    );
    if (this.client !== undefined && c.events !== false) {
      this.events = new EventRecorder({ client: this.client, component: c.name, logger: this.logger });
    }
    if (this.client !== undefined && c.errorCondition !== false) {
      this.errorConditions = new ErrorConditionWriter({
        client: this.client,
        type: c.errorCondition.type,
        ...(c.resource === undefined ? {} : { resource: c.resource }),
        logger: this.logger,
      });
    }
    this.pool = new WorkerPool({
      name: c.name,
      workers: c.workers,
      minIntervalMs: c.minReconcileIntervalMs,
      rateLimiter: c.rateLimiter,
      registry: c.registry,
      metrics: this.controllerMetrics,
      logger: this.logger,
      process: (queue, key, signal) => this.process(queue, key, signal),
    });
    this.reconciler = new Reconciler<Obj>({
      name: c.name,
      router: c.router,
      finalizer: c.finalizer,
      pauseAnnotations: c.pauseAnnotations,
      logger: this.logger,
      metrics: this.controllerMetrics,
      events: this.events,
      memory: this.memory,
      finalizers: this.finalizerOps(),
      reconcileTimeoutMs: c.reconcileTimeoutMs,
      prepareContext: (ctx) => {
        if (this.client !== undefined) ctx.set(clientKey, this.client);
        ctx.set(cacheKey, (kind: string) => this.cache(kind));
      },
    });
  }

  /** The Prometheus registry holding every metric of this framework. */
  get metrics(): Registry {
    return this.config.registry;
  }

  /** True once every watched kind's first list is in (immediately after start without `resource`). */
  get synced(): boolean {
    return this.isSynced;
  }

  /** True while started, synced and not stopping: the framework reconciles (or stands by as a follower). */
  get ready(): boolean {
    return this.isSynced && this.stopPromise === undefined && this.watches.problem() === undefined;
  }

  /** True while this replica runs workers (always, without leader election). */
  get leading(): boolean {
    return this.pool.running;
  }

  /** Base URL of the health server once listening (`http://127.0.0.1:8080`), else undefined. */
  get healthUrl(): string | undefined {
    return this.health?.url;
  }

  /** The cache of `kind` (the reconciled kind or one in `owns`), or undefined when not watched. */
  cache(kind: string): Store | undefined {
    return this.watches.cache(kind);
  }

  /** Informer drop-in: remembers `newObj` and enqueues its key (level-triggered: the latest wins). */
  updateFunc(_oldObj: Obj | undefined, newObj: Obj): void {
    const key = objectKey(newObj);
    this.remembered.set(key, newObj);
    this.tombstones.delete(key);
    this.pool.add(key);
  }

  /** Informer drop-in: forgets `obj`; with finalizers off its delete path runs with this last state. */
  deleteFunc(obj: Obj): void {
    const key = objectKey(obj);
    this.remembered.delete(key);
    if (this.config.finalizer === false) this.tombstones.set(key, obj);
    this.pool.add(key);
  }

  /** Starts watching and reconciling; resolves once the caches are synced and workers run (or stand by). */
  start(): Promise<void> {
    if (this.stopPromise !== undefined)
      return Promise.reject(new Error('framework was stopped; create a new one'));
    this.startPromise ??= this.run().catch(async (err: unknown) => {
      this.logger.error('framework failed to start', { err });
      await this.stop();
      throw err;
    });
    return this.startPromise;
  }

  /**
   * Stops gracefully: takes no new work, lets in-flight reconciles finish (up to
   * `gracefulShutdownMs`, then aborts them through their signal), releases the Lease, closes watches
   * and servers. Nothing keeps the process alive afterwards. Idempotent.
   */
  stop(): Promise<void> {
    this.stopPromise ??= this.shutdown();
    return this.stopPromise;
  }

  /**
   * Stops this framework gracefully on SIGTERM/SIGINT and exits 0; a second signal exits at once.
   * Returns a function removing the handlers. See also `runUntilSignal`.
   */
  handleSignals(options: HandleSignalsOptions = {}): () => void {
    return handleSignals(this, { logger: this.logger, ...options }).dispose;
  }

  private async run(): Promise<void> {
    const c = this.config;
    const signal = this.lifetime.signal;
    const deadline =
      c.cacheSyncTimeoutMs > 0
        ? AbortSignal.any([signal, AbortSignal.timeout(c.cacheSyncTimeoutMs)])
        : signal;
    if (c.healthServer !== false) {
      this.health = new HealthServer({
        ...c.healthServer,
        registry: c.registry,
        readinessChecks: {
          'cache-synced': () => (this.isSynced ? undefined : 'caches not synced yet'),
          'not-stopping': () => (this.stopPromise === undefined ? undefined : 'shutting down'),
          'watches-healthy': () => this.watches.problem(),
        },
      });
      const url = await this.health.start(signal);
      this.logger.info('health server listening', { url });
    }
    if (this.client !== undefined && c.crd !== undefined) {
      const client = this.client;
      const crd = c.crd;
      await retryWithHints('ensuring the CustomResourceDefinition', this.logger, deadline, () =>
        ensureCrd(client, crd, this.logger, deadline),
      );
    }
    if (this.client !== undefined && c.resource !== undefined) {
      const handlers = this.watchHandlers();
      await this.watches.start(this.client, c.resource, c.owns, handlers, deadline, c.cacheSyncTimeoutMs);
    }
    this.isSynced = true;
    this.scheduleResync();
    if (c.leaderElection !== false && this.client !== undefined) {
      const le = c.leaderElection;
      this.elector = new LeaderElector({
        client: this.client,
        ...le,
        logger: this.logger,
        registry: c.registry,
      });
      this.election = this.elector
        .run(signal, {
          onStartedLeading: (leaderSignal) => {
            if (this.stopPromise === undefined) this.pool.start(leaderSignal, this.knownKeys());
          },
          onStoppedLeading: () => {
            this.pool.stopNow('leadership lost');
          },
        })
        .catch((err: unknown) => {
          this.logger.error('leader election failed', { err });
        });
    } else {
      this.pool.start(signal, this.knownKeys());
    }
    this.logger.info('framework started', { workers: c.workers, leaderElection: c.leaderElection !== false });
  }

  private watchHandlers(): WatchSetHandlers<Obj> {
    return {
      changed: (key) => {
        this.tombstones.delete(key);
        this.remembered.delete(key);
        this.pool.add(key);
      },
      deleted: (key, obj) => {
        this.remembered.delete(key);
        if (this.config.finalizer === false) this.tombstones.set(key, obj);
        this.pool.add(key);
      },
      ownerTouched: (key) => {
        this.pool.add(key);
      },
    };
  }

  private async process(queue: WorkQueue, key: string, signal: AbortSignal): Promise<void> {
    const fromStore = this.watches.primary?.get(key);
    const obj = fromStore ?? this.remembered.get(key);
    const tombstone = obj === undefined ? this.tombstones.get(key) : undefined;
    const outcome = await this.reconciler.reconcile(key, obj, tombstone, signal);
    switch (outcome.result) {
      case 'success':
        queue.forget(key);
        if (outcome.added === undefined) this.errorConditions?.succeeded(key, signal);
        if (
          outcome.tombstoneDone === true &&
          tombstone !== undefined &&
          this.tombstones.get(key) === tombstone
        ) {
          this.tombstones.delete(key);
        }
        // Without a watch on this object nobody else would deliver the patched version.
        if (outcome.added !== undefined && fromStore === undefined) {
          this.remembered.set(key, outcome.added as Obj);
          queue.add(key);
        }
        return;
      case 'requeue_after':
        queue.forget(key);
        this.errorConditions?.succeeded(key, signal);
        queue.addAfter(key, outcome.delayMs);
        return;
      case 'requeue':
        queue.addRateLimited(key);
        return;
      case 'error':
        // The reconciler logged it and posted the Warning Event; the condition puts it on the object.
        // `signal` is the worker's, not the pass's (which a timeout has already aborted).
        if (obj !== undefined) this.errorConditions?.failed(obj, outcome.error, this.logger, signal);
        queue.addRateLimited(key);
        return;
      case 'aborted':
        return;
    }
  }

  private knownKeys(): Set<string> {
    const keys = new Set<string>(this.remembered.keys());
    for (const key of this.tombstones.keys()) keys.add(key);
    for (const key of this.watches.primary?.keys() ?? []) keys.add(key);
    return keys;
  }

  private scheduleResync(): void {
    const period = this.config.resyncPeriodMs;
    if (period <= 0 || this.stopPromise !== undefined) return;
    this.resyncTimer = setTimeout(
      () => {
        this.logger.debug('resync: enqueueing every cached object');
        for (const key of this.knownKeys()) this.pool.add(key);
        this.scheduleResync();
      },
      jitter(period, DEFAULT_RESYNC_JITTER),
    );
    this.resyncTimer.unref();
  }

  private async shutdown(): Promise<void> {
    const c = this.config;
    this.logger.info('stopping framework: draining in-flight reconciles', { graceMs: c.gracefulShutdownMs });
    clearTimeout(this.resyncTimer);
    if (await this.pool.close(c.gracefulShutdownMs)) {
      this.logger.warn('grace period over: aborted in-flight reconciles');
    }
    this.lifetime.abort(new Error('framework stopped'));
    await this.election;
    await this.watches.stop();
    const flushDeadline = new AbortController();
    await Promise.race([
      Promise.all([this.events?.flush(), this.errorConditions?.flush()]),
      sleep(EVENT_FLUSH_TIMEOUT_MS, flushDeadline.signal).catch(() => undefined),
    ]);
    flushDeadline.abort();
    await this.health?.close();
    this.client?.close();
    this.isSynced = false;
    this.logger.info('framework stopped');
  }

  private finalizerOps(): ConstructorParameters<typeof Reconciler<Obj>>[0]['finalizers'] {
    const { finalizer, resource, backOffFactory } = this.config;
    const client = this.client;
    if (finalizer === false || client === undefined || resource === undefined) return undefined;
    return {
      add: (obj, signal) => addFinalizer(client, resource, obj, finalizer, backOffFactory, signal),
      remove: (obj, signal) => removeFinalizer(client, resource, obj, finalizer, backOffFactory, signal),
    };
  }
}
