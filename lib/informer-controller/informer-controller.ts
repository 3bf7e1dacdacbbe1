import type { KubernetesObject } from '@kubernetes/client-node';
import type { Tracer } from '@opentelemetry/api';
import { otelApi } from '../util/opentelemetry.js';
import { promClient } from '../util/prom-client.js';
import type { Reconciler } from '../controller/reconcile-types.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import type { ControllerCore } from '../engine/controller-core.js';
import type { PassBody } from '../engine/pass-body.js';
import { FrontEnd } from '../host/front-end.js';
import { resolveCoreConfig } from '../engine/resolve-core-config.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../engine/retry-policy.js';
import { Informer } from '../watch/informer.js';
import { informerKey, type InformerSource } from '../watch/informer-cache.js';
import { objectKey } from '../watch/store.js';
import { defaultErrorHandler } from './default-error-handler.js';
import type { InformerControllerOptions, InformerControllerSource } from './informer-controller-options.js';
import { InformerAlreadyAddedError, NilObjectError } from './informer-errors.js';
import { InformerMetrics } from './informer-metrics.js';
import { InformerPassBody, type ErrorHandler } from './informer-pass-body.js';
import { RequestLedger, type Handler } from './request-ledger.js';
import type { ResourceAction } from './resource-action.js';
import type { ResourceWatcher } from './resource-watcher.js';
import type { RetryDequeuePolicy } from './retry-dequeue-policy.js';

const DEFAULT_NAME = 'informer-controller';

/** One informer feeding a kind. */
interface Feed {
  /** Identity for InformerAlreadyAddedError. */
  id: string | Informer;
  source: InformerControllerSource | undefined;
  /** The user's own informer (started and stopped with the controller). */
  own: Informer | undefined;
  /** The subscription through the engine's source set while running. */
  attached: { informer: Informer; detach: () => Promise<void> } | undefined;
}

interface KindEntry {
  feeds: Feed[];
  watchers: ResourceWatcher[];
  reconcilers: Reconciler[];
}

function checkKind(kind: unknown, method: string): string {
  if (typeof kind !== 'string' || kind.trim() === '') {
    throw new InvalidConfigError(
      `${method}: resourceKind must be a non-empty string naming the kind its handlers belong to (e.g. 'widgets')`,
    );
  }
  return kind;
}

function joined(list: unknown, field: string): string | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.some((s) => typeof s !== 'string' || s.trim() === '')) {
    throw new InvalidConfigError(`${field} must be an array of non-empty selector strings like 'team=x'`);
  }
  return list.length === 0 ? undefined : list.join(',');
}

/**
 * What `plan()` runs for an {@link InformerController} (see {@link InformerController.planning}).
 * @category Informer controller (grafana-app-sdk)
 */
export interface InformerPlanning {
  /** A pass body of its own over the controller's handlers: a fresh request ledger, no retries. */
  body: PassBody<KubernetesObject>;
  /** Each kind's sources (informers of your own are not listed: their source is theirs). */
  sources: { kind: string; source: InformerSource }[];
  /** Records `obj` as a `created` event of `kind` for every handler; returns the pass's key. */
  created(kind: string, obj: KubernetesObject): string;
}

/**
 * grafana-app-sdk's `InformerController` on reconcilekit's engine: informers (several per kind —
 * namespace or label partitions) feed per-event watchers (`add`/`update`/`delete`) and reconcilers
 * (`ReconcileRequest` with action, snapshot and state) registered per kind. For one object, the
 * handlers run in add order, watchers before reconcilers, never two at once; each failed call is
 * retried on its own per `retryPolicy`, and a new event drops (or, with `retryDequeuePolicy`, filters)
 * only that handler's pending retries for that object. Runs on `ControllerCore` (one queue, workers,
 * leadership, health, shutdown), with a per-object request ledger as its pass body. See
 * docs/coming-from-grafana-app-sdk.md.
 * @category Informer controller (grafana-app-sdk)
 */
export class InformerController extends FrontEnd {
  private readonly kinds = new Map<string, KindEntry>();
  private readonly ledger: RequestLedger;
  private readonly errorHandler: ErrorHandler;
  private readonly retryPolicy: RetryPolicy | null;
  private readonly retryDequeuePolicy: RetryDequeuePolicy | undefined;
  private readonly metricsNamespace: string;
  private readonly tracer: Tracer;
  private informerMetrics: InformerMetrics | undefined;
  private running = false;

  constructor(options: InformerControllerOptions = {}) {
    const o = resolveInformerOptions(options);
    const ledger = new RequestLedger();
    // The pass body calls back into this controller (its handler lists and metrics), which exists only
    // once the engine is built.
    const self: { controller?: InformerController } = {};
    const it = (): InformerController => self.controller as InformerController;
    super(
      o.config,
      new InformerPassBody({
        ledger,
        handlers: (kind) => it().handlerTargets(kind),
        errorHandler: o.errorHandler,
        retryPolicy: o.retryPolicy,
        retryDequeuePolicy: o.retryDequeuePolicy,
        metrics: () => it().metricsOf(),
        tracer: o.tracer,
        logger: o.config.logger.child({ controller: o.config.name }),
      }),
      'informer controller',
    );
    self.controller = this;
    this.ledger = ledger;
    this.errorHandler = o.errorHandler;
    this.retryPolicy = o.retryPolicy;
    this.retryDequeuePolicy = o.retryDequeuePolicy;
    this.metricsNamespace = o.metricsNamespace;
    this.tracer = o.tracer;
  }

  /** The engine (the same as `core`). */
  get engine(): ControllerCore {
    return this.core;
  }

  /**
   * For `plan()`: the handlers run as on a first list (every object a `created` event), through a pass
   * body with its own ledger and metrics, so nothing of the running controller changes. A failed call is
   * reported to `onError` and not retried.
   */
  planning(onError: (err: unknown) => void): InformerPlanning {
    const ledger = new RequestLedger();
    const metrics = new InformerMetrics(new (promClient().Registry)(), this.metricsNamespace);
    const body = new InformerPassBody({
      ledger,
      handlers: (kind) => this.handlerTargets(kind),
      errorHandler: (_ctx, err) => {
        onError(err);
      },
      retryPolicy: null,
      retryDequeuePolicy: undefined,
      metrics: () => metrics,
      tracer: this.tracer,
      logger: this.config.logger.child({ controller: this.config.name, plan: true }),
    });
    const sources: InformerPlanning['sources'] = [];
    for (const [kind, entry] of this.kinds) {
      for (const feed of entry.feeds)
        if (feed.source !== undefined) sources.push({ kind, source: feed.source });
    }
    return {
      body,
      sources,
      created: (kind, obj) => {
        const key = `${kind}:${objectKey(obj)}`;
        ledger.event(key, kind, this.handlers(kind), 'CREATE', 'created', obj, undefined, Date.now());
        return key;
      },
    };
  }

  /** True while started, every informer synced, and not stopping. */
  override get ready(): boolean {
    return this.running && this.engine.ready;
  }

  /** Objects with pending calls (retries, requeues, events not yet handled). */
  get pendingObjects(): number {
    return this.ledger.size;
  }

  /**
   * Adds an informer for `resourceKind`: a source (the engine's shared informer for it) or an
   * `Informer` of your own (started and stopped with the controller). Several informers may feed one
   * kind (namespace or label partitions); every handler of the kind sees all their events. Added while
   * running, it starts at once. Throws `InvalidConfigError` on an empty kind or a bad source,
   * {@link InformerAlreadyAddedError} when the same informer or source was already added for the kind.
   */
  addInformer(informer: InformerControllerSource | Informer, resourceKind: string): void {
    const kind = checkKind(resourceKind, 'addInformer');
    if ((informer as unknown) === undefined || (informer as unknown) === null)
      throw new NilObjectError('addInformer: informer');
    let feed: Feed;
    if (informer instanceof Informer) {
      feed = { id: informer, source: undefined, own: informer, attached: undefined };
    } else {
      if (
        typeof informer !== 'object' ||
        typeof informer.apiVersion !== 'string' ||
        typeof informer.kind !== 'string' ||
        informer.apiVersion === '' ||
        informer.kind === ''
      ) {
        throw new InvalidConfigError(
          "addInformer: give an Informer or a source { apiVersion, kind, namespace?, labelFilters? } (e.g. { apiVersion: 'example.com/v1', kind: 'Widget' })",
        );
      }
      const { labelFilters, fieldSelectors, ...rest } = informer;
      const labels = [rest.labelSelector, joined(labelFilters, 'addInformer: labelFilters')].filter(
        (s): s is string => s !== undefined && s !== '',
      );
      const fields = [rest.fieldSelector, joined(fieldSelectors, 'addInformer: fieldSelectors')].filter(
        (s): s is string => s !== undefined && s !== '',
      );
      const source: InformerControllerSource = { ...rest };
      delete source.labelSelector;
      delete source.fieldSelector;
      if (labels.length > 0) source.labelSelector = labels.join(',');
      if (fields.length > 0) source.fieldSelector = fields.join(',');
      feed = { id: informerKey(source), source, own: undefined, attached: undefined };
    }
    const entry = this.entry(kind);
    if (entry.feeds.some((f) => f.id === feed.id)) throw new InformerAlreadyAddedError(kind);
    entry.feeds.push(feed);
    if (this.running) this.open(kind, feed);
  }

  /** Adds a watcher for `resourceKind`; watchers run in add order, before the kind's reconcilers. */
  addWatcher(watcher: ResourceWatcher, resourceKind: string): void {
    const kind = checkKind(resourceKind, 'addWatcher');
    if ((watcher as unknown) === undefined || (watcher as unknown) === null)
      throw new NilObjectError('addWatcher: watcher');
    const w = watcher as Record<string, unknown>;
    if (typeof watcher !== 'object' || !['add', 'update', 'delete'].some((m) => typeof w[m] === 'function')) {
      throw new InvalidConfigError(
        'addWatcher: the watcher must have at least one of add(ctx, obj), update(ctx, old, obj), delete(ctx, obj) (e.g. new SimpleWatcher({ add }))',
      );
    }
    for (const m of ['add', 'update', 'delete']) {
      if (w[m] !== undefined && typeof w[m] !== 'function') {
        throw new InvalidConfigError(`addWatcher: watcher.${m} must be a function or left out`);
      }
    }
    this.entry(kind).watchers.push(watcher);
  }

  /** Removes `watcher` from `resourceKind` and drops its pending retries (other handlers keep theirs). */
  removeWatcher(watcher: ResourceWatcher, resourceKind: string): void {
    const entry = this.kinds.get(resourceKind);
    if (entry === undefined) return;
    const i = entry.watchers.indexOf(watcher);
    if (i < 0) return;
    entry.watchers.splice(i, 1);
    if (!entry.watchers.includes(watcher)) this.ledger.dropHandler(watcher);
  }

  /** Removes every watcher of `resourceKind`. */
  removeAllWatchersForResource(resourceKind: string): void {
    const entry = this.kinds.get(resourceKind);
    for (const w of entry?.watchers.splice(0) ?? []) this.ledger.dropHandler(w);
  }

  /** Adds a reconciler for `resourceKind`; reconcilers run in add order, after the kind's watchers. */
  addReconciler(reconciler: Reconciler, resourceKind: string): void {
    const kind = checkKind(resourceKind, 'addReconciler');
    if ((reconciler as unknown) === undefined || (reconciler as unknown) === null)
      throw new NilObjectError('addReconciler: reconciler');
    if (typeof reconciler !== 'object' || typeof reconciler.reconcile !== 'function') {
      throw new InvalidConfigError(
        'addReconciler: the reconciler must have reconcile(ctx, req) (e.g. new SimpleReconciler(async (ctx, req) => {}))',
      );
    }
    this.entry(kind).reconcilers.push(reconciler);
  }

  /** Removes `reconciler` from `resourceKind` and drops its pending retries (other handlers keep theirs). */
  removeReconciler(reconciler: Reconciler, resourceKind: string): void {
    const entry = this.kinds.get(resourceKind);
    if (entry === undefined) return;
    const i = entry.reconcilers.indexOf(reconciler);
    if (i < 0) return;
    entry.reconcilers.splice(i, 1);
    if (!entry.reconcilers.includes(reconciler)) this.ledger.dropHandler(reconciler);
  }

  /** Removes every reconciler of `resourceKind`. */
  removeAllReconcilersForResource(resourceKind: string): void {
    const entry = this.kinds.get(resourceKind);
    for (const r of entry?.reconcilers.splice(0) ?? []) this.ledger.dropHandler(r);
  }

  /**
   * Starts every informer, waits until all listed (the listed objects arrive as `add` / `created`
   * events), then runs the handlers. Rejects when an informer cannot sync within `cacheSyncTimeoutMs`.
   */
  override async start(): Promise<void> {
    if (this.running) return this.engine.start();
    this.metricsOf();
    this.running = true;
    const c = this.config;
    const deadline = c.cacheSyncTimeoutMs > 0 ? AbortSignal.timeout(c.cacheSyncTimeoutMs) : undefined;
    try {
      const syncs: Promise<void>[] = [];
      for (const [kind, entry] of this.kinds) {
        for (const feed of entry.feeds) {
          const informer = this.open(kind, feed);
          syncs.push(
            informer.waitForSync(deadline, c.cacheSyncTimeoutMs > 0 ? c.cacheSyncTimeoutMs : 2 ** 31 - 1),
          );
        }
      }
      await Promise.all(syncs);
      await this.engine.start();
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  /** Stops the handlers gracefully (see docs/shutdown.md), then every informer. Idempotent. */
  override async stop(): Promise<void> {
    this.running = false;
    await this.engine.stop();
    const closing: Promise<void>[] = [];
    for (const entry of this.kinds.values()) {
      for (const feed of entry.feeds) {
        if (feed.attached !== undefined) closing.push(feed.attached.detach());
        feed.attached = undefined;
      }
    }
    await Promise.allSettled(closing);
  }

  private entry(kind: string): KindEntry {
    let entry = this.kinds.get(kind);
    if (entry === undefined) {
      entry = { feeds: [], watchers: [], reconcilers: [] };
      this.kinds.set(kind, entry);
    }
    return entry;
  }

  private handlerTargets(kind: string): readonly object[] {
    const entry = this.kinds.get(kind);
    return entry === undefined ? [] : [...entry.watchers, ...entry.reconcilers];
  }

  private handlers(kind: string): Handler[] {
    const entry = this.kinds.get(kind);
    if (entry === undefined) return [];
    return [
      ...entry.watchers.map((watcher): Handler => ({ role: 'watcher', watcher })),
      ...entry.reconcilers.map((reconciler): Handler => ({ role: 'reconciler', reconciler })),
    ];
  }

  private metricsOf(): InformerMetrics {
    this.informerMetrics ??= new InformerMetrics(this.engine.metrics, this.metricsNamespace);
    return this.informerMetrics;
  }

  /** Subscribes to a feed through the engine's source set (acquiring or starting its informer). */
  private open(kind: string, feed: Feed): Informer {
    if (feed.attached !== undefined) return feed.attached.informer;
    const target = feed.source === undefined ? { own: feed.own as Informer } : { source: feed.source };
    feed.attached = this.engine.attach(target, {
      add: (obj) => {
        this.deliver(kind, 'CREATE', obj, undefined);
      },
      update: (old, obj) => {
        this.deliver(kind, 'UPDATE', obj, old);
      },
      delete: (obj) => {
        this.deliver(kind, 'DELETE', obj, undefined);
      },
    });
    return feed.attached.informer;
  }

  private deliver(
    kind: string,
    action: ResourceAction,
    obj: KubernetesObject,
    old: KubernetesObject | undefined,
  ): void {
    this.metricsOf().events.inc({ event_type: action, kind });
    const handlers = this.handlers(kind);
    if (handlers.length === 0) return;
    const key = `${kind}:${objectKey(obj)}`;
    const reconcileAction =
      action === 'CREATE'
        ? 'created'
        : action === 'DELETE'
          ? 'deleted'
          : old?.metadata?.resourceVersion !== undefined &&
              old.metadata.resourceVersion === obj.metadata?.resourceVersion
            ? 'resynced'
            : 'updated';
    this.ledger.event(key, kind, handlers, action, reconcileAction, obj, old, Date.now());
    if (action === 'DELETE') this.engine.deleteFunc(key, obj);
    else this.engine.updateFunc(key, obj);
  }
}

/** The options checked, the engine's part resolved (no finalizer, no error condition, no resync). */
function resolveInformerOptions(options: InformerControllerOptions) {
  if (typeof options !== 'object' || (options as unknown) === null) {
    throw new InvalidConfigError('new InformerController(options): options must be an object (or left out)');
  }
  const o = options;
  if (o.sharding !== undefined && o.sharding !== false) {
    throw new InvalidConfigError(
      'options.sharding: an InformerController cannot be sharded yet (its informers are its own); shard a Controller or a Framework (docs/sharding.md)',
    );
  }
  if (o.errorHandler !== undefined && typeof o.errorHandler !== 'function') {
    throw new InvalidConfigError('options.errorHandler must be a function (ctx, err) => void');
  }
  if (o.retryPolicy !== undefined && o.retryPolicy !== null && typeof o.retryPolicy !== 'function') {
    throw new InvalidConfigError(
      'options.retryPolicy must be a function (error, attempt) => { retry, delayMs }, or null for no retries',
    );
  }
  if (o.retryDequeuePolicy !== undefined && typeof o.retryDequeuePolicy !== 'function') {
    throw new InvalidConfigError(
      'options.retryDequeuePolicy must be a function (newAction, newObject, retryAction, retryObject, retryError) => boolean',
    );
  }
  if (o.metricsNamespace !== undefined && !/^([a-zA-Z_:][a-zA-Z0-9_:]*)?$/.test(o.metricsNamespace)) {
    throw new InvalidConfigError(
      `options.metricsNamespace must be a Prometheus name prefix (letters, digits, '_', ':'); got "${o.metricsNamespace}"`,
    );
  }
  const { errorHandler, retryPolicy, retryDequeuePolicy, metricsNamespace, tracer, ...core } = o;
  const config = resolveCoreConfig(
    { ...core, name: o.name ?? DEFAULT_NAME, finalizer: false, errorCondition: false, resyncPeriodMs: 0 },
    {
      usage: 'new InformerController({ name?, kubeConfig?, errorHandler?, retryPolicy?, … })',
      defaultFinalizer: () => false,
    },
  );
  return {
    config,
    errorHandler: errorHandler ?? defaultErrorHandler,
    retryPolicy: retryPolicy === undefined ? DEFAULT_RETRY_POLICY : retryPolicy,
    retryDequeuePolicy,
    metricsNamespace: metricsNamespace ?? '',
    tracer: tracer ?? otelApi().trace.getTracer('reconcilekit'),
  };
}
