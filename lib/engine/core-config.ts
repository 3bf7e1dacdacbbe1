import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { HealthCheck, ProbeThread } from '../observability/health-server.js';
import type { InformerCache } from '../watch/informer-cache.js';
import type { IndexFunc } from '../watch/field-index.js';
import type { RetryPolicy } from './retry-policy.js';
import type { WorkQueueOrder } from '../queue/priority.js';
import type { Registry } from 'prom-client';
import type { RateLimiter } from '../queue/rate-limiter.js';
import type { Logger } from '../observability/logger.js';
import type { BackOffFactory } from '../util/backoff.js';
import type { Predicate } from './predicates.js';
import type { WatchSource } from './watch-source.js';
import type { ShardingOptions } from '../sharding/sharding-options.js';
import type { WarningHandler } from '../kube/api-warnings.js';
import type { LoadedKubeConfig } from '../kube/loaded-kube-config.js';

/**
 * The kind the framework reconciles, and which of its objects.
 * @category Engine: Framework and ControllerCore
 */
export interface FrameworkResource {
  /** `group/version` (or `v1`). */
  apiVersion: string;
  /** Kind, e.g. `Website`. */
  kind: string;
  /** Plural resource name. Default: found through discovery. */
  plural?: string;
  /** Only this namespace. Default: all namespaces. */
  namespace?: string;
  /**
   * Only these namespaces (instead of `namespace`): one list and watch per namespace, one cache. Owned
   * kinds default to the same namespaces. Default: all namespaces.
   */
  namespaces?: readonly string[];
  /** Only objects matching this label selector. Default: all. */
  labelSelector?: string;
  /** Only objects matching this field selector. Default: all. */
  fieldSelector?: string;
}

/**
 * A kind whose objects the reconciled kind owns (by ownerReference).
 * @category Engine: Framework and ControllerCore
 */
export interface OwnedResource {
  /** `group/version` (or `v1`). */
  apiVersion: string;
  /** Kind, e.g. `ConfigMap`. */
  kind: string;
  /** Plural resource name. Default: found through discovery. */
  plural?: string;
  /** Only this namespace. Default: the reconciled resource's namespace(s), else all. */
  namespace?: string;
  /** Only these namespaces, one watch each (instead of `namespace`). Default: as `namespace`. */
  namespaces?: readonly string[];
  /** Only owned objects matching this label selector (smaller cache). Default: all. */
  labelSelector?: string;
  /**
   * Watch and cache the metadata of these objects only (`PartialObjectMetadata`: name, namespace, labels,
   * annotations, ownerReferences, …, no spec, data or status) — enough to enqueue the owner, at a fraction
   * of the memory for large objects such as Secrets. The controller's cache of the kind then holds metadata
   * only; reads through the context's client still return whole objects. Default false.
   */
  metadataOnly?: boolean;
}

/**
 * Lease-based leader election settings.
 * @category Engine: Framework and ControllerCore
 */
export interface LeaderElectionOptions {
  /** Name of the coordination.k8s.io/v1 Lease. Required. */
  leaseName: string;
  /** Namespace of the Lease. Required. */
  namespace: string;
  /** This replica's identity. Default: host name + random suffix. */
  identity?: string;
  /**
   * Lease duration. Default 15 s: a standby takes over within this plus about two retry periods after
   * the leader vanished (≈ 19 s by default), and about at once after a graceful stop (the Lease is released).
   */
  leaseDurationMs?: number;
  /** The leader steps down if it could not renew for this long. Default 10 s. */
  renewDeadlineMs?: number;
  /** Interval between acquire/renew attempts (±20 % jitter); also the takeover lag beyond the lease. Default 2 s. */
  retryPeriodMs?: number;
}

/**
 * Where the health server listens.
 * @category Engine: Framework and ControllerCore
 */
export interface HealthServerConfig {
  /** Bind address. Default 0.0.0.0 inside a pod (service-account token mounted: kubelet probes reach it), else 127.0.0.1. */
  host?: string;
  /** Port; 0 picks a free one. Default 8080. */
  port?: number;
  /**
   * Your own checks behind `/readyz`, next to the engine's (cache synced, not stopping, watches healthy, …):
   * name → a function returning (or resolving to) undefined when ready, else the reason. Default none.
   */
  readinessChecks?: Record<string, HealthCheck>;
  /** Your own checks behind `/healthz` (the process is alive and not stuck). Default none. */
  livenessChecks?: Record<string, HealthCheck>;
  /**
   * `'worker'` (default): probes are answered on a worker thread of their own, from the main event loop's
   * heartbeat and the checks' last results, so they do not time out while the operator is busy; `/metrics`
   * and the live view are passed through to the main loop. `'main'`: everything on the main event loop.
   */
  probeThread?: ProbeThread;
  /**
   * With `probeThread: 'worker'`: `/healthz` and `/readyz` fail (500) once the main event loop has not
   * turned for this long. Default 10,000 ms (`DEFAULT_MAX_EVENT_LOOP_BLOCK_MS`).
   */
  maxEventLoopBlockMs?: number;
}

/**
 * The options every front end shares (`Framework`, `Controller`, later ones): the engine's watches,
 * queue, workers, finalizer, leadership, health, metrics, Events and shutdown. Only `name` is required.
 * @category Engine: Framework and ControllerCore
 */
export interface CoreConfig<Obj extends KubernetesObject = KubernetesObject> {
  /** Controller name: metrics `controller` label, logs, Event source, default finalizer. Required. */
  name: string;
  /**
   * API server connection: a client-node `KubeConfig`, or what `readKubeConfig()` returns (no client-node
   * loaded). Default: `KUBECONFIG`, then `~/.kube/config`, then in-cluster.
   */
  kubeConfig?: KubeConfig | LoadedKubeConfig;
  /**
   * The kind to list and watch. Default: none — the framework then only reconciles what is fed to
   * `updateFunc`/`deleteFunc` (an informer of your own, or benchmarks).
   */
  resource?: FrameworkResource;
  /** A CustomResourceDefinition to create when missing; `start()` waits until it is Established. */
  crd?: KubernetesObject;
  /** Kinds owned by the reconciled kind: watched, cached, and their changes enqueue the owner. Default none. */
  owns?: readonly OwnedResource[];
  /**
   * Watches of other kinds whose changes reconcile primaries through `map` (controller-runtime's
   * `Watches`). Default none.
   */
  watches?: readonly WatchSource[];
  /**
   * Field indexes on the shared cache (controller-runtime's `IndexField`), registered before the watches
   * start: `{ apiVersion, kind, name, fn }`, `fn` giving the values an object is found under. Read them with
   * `cache(kind)?.byIndex(name, value)` (in a pass through `cacheKey`, in a `watches` mapper through its
   * context) or `client.list(ref, { matchingFields: { [name]: value } })`. Default none.
   */
  indexes?: readonly FieldIndexSpec[];
  /** Filters the reconciled kind's watch events (`predicates.generationChanged()`, …). Default none. */
  predicates?: readonly Predicate<Obj>[];
  /** Concurrent reconciles (never two on one key). Default 1. */
  workers?: number;
  /**
   * Minimum time between the starts of two reconciles of one object; 0 disables. Default 100 ms: an idle
   * object runs at once, one changed again while or right after it runs waits, so bursts coalesce.
   */
  minReconcileIntervalMs?: number;
  /**
   * Order of the work queue. `'priority'` (default): keys from changes users make — watch events of the
   * reconciled object (but not status-only updates) and its children after the initial list,
   * `enqueue(key)` — run ahead of the initial
   * list, a new leadership term's keys, resyncs and retries after backoffs of 1 s or more; one pass in four
   * goes to the longest-waiting key, so nothing waits unboundedly (docs/work-queue.md). `'fifo'`: client-go's
   * order, every key in turn.
   */
  queueOrder?: WorkQueueOrder;
  /** Re-run every cached object this often, ±10 % jitter; 0 disables. Default 5 min. */
  resyncPeriodMs?: number;
  /** Finalizer name, or false to manage none. Default `reconcilekit.io/<name>` (Framework; `Controller`: only with `cleanup`). */
  finalizer?: string | false;
  /** Annotations pausing reconciliation when set to "true". Default reconcilekit.io/paused and cluster.x-k8s.io/paused. */
  pauseAnnotations?: readonly string[];
  /** Backoff of engine API calls (finalizer patches, CRD creation). Default: the core's defaultBackOffFactory. */
  backOffFactory?: BackOffFactory;
  /** Per-key requeue delays after errors. Default 5 ms × 2, capped at 1000 s, reset on success. */
  rateLimiter?: RateLimiter;
  /** Logger. Default: `createLogger()` (JSON lines on stdout, level from LOG_LEVEL). */
  logger?: Logger;
  /** Prometheus registry for every metric. Default: a new Registry (never the global one). */
  registry?: Registry;
  /**
   * Add the process metrics (CPU, memory, event-loop lag, heap, GC: prom-client's default metrics) to the
   * registry, as controller-runtime serves Go's. Default true; false when you collect them yourself.
   */
  collectDefaultMetrics?: boolean;
  /** Lease-based leader election, or false. Default false (every replica reconciles). */
  leaderElection?: LeaderElectionOptions | false;
  /**
   * Scale out across replicas (docs/sharding.md): every replica reconciles, each only the objects of
   * `resource` labelled with its own shard; a consistent-hash ring over the replicas' shard Leases decides
   * which, and no object is in a pass on two replicas at once. Not with `leaderElection`. Default false.
   */
  sharding?: ShardingOptions | false;
  /** `/healthz`, `/readyz`, `/metrics` server, or false. Default false (embed the framework freely). */
  healthServer?: HealthServerConfig | false;
  /**
   * Serve the live view (`/debug/` and `/debug/api/`) on the health server, keeping a bounded reconcile
   * history (see docs/live-view.md). `{ token }` also admits non-loopback clients that send
   * `Authorization: Bearer <token>`; without it only loopback clients naming a loopback host are
   * answered (`allowedHosts` adds names). Default false.
   */
  debugPage?: boolean | DebugPageOptions;
  /** Abort a reconcile (through its signal) after this long; counts as an error. 0 disables. Default 5 min. */
  reconcileTimeoutMs?: number;
  /** Time `stop()` lets in-flight reconciles finish before aborting them. Default 30 s. */
  gracefulShutdownMs?: number;
  /** How long `start()` waits for the caches to fill; 0 waits forever. Default 2 min. */
  cacheSyncTimeoutMs?: number;
  /** Post Kubernetes Events (Warning on errors). Default true when there is an API connection. */
  events?: boolean;
  /**
   * Condition set to False (reason and message of the error) on the status of an object whose reconcile
   * failed, or false for none. Default `{ type: 'Ready' }` on kinds with a status subresource
   * (failures visible on the object). Removed after the next success unless your status changed it.
   */
  errorCondition?: { type?: string } | false;
  /**
   * How the client in the reconcile context (`ctx.get(clientKey)`) reads. Default false: `get` and `list`
   * are answered from the shared informer cache — the controller's own informers for the kinds it
   * reconciles, owns and watches, and for any other kind an informer started on first read (scoped to
   * `resource.namespace` when set) — with the client's own writes visible to its next reads; a call reads
   * live with `{ live: true }`. `true`: every read goes to the API server. A list of kinds: those kinds are
   * read live (e.g. Secrets you do not want cached). See docs/watch-and-cache.md.
   */
  liveReads?: boolean | readonly { apiVersion: string; kind: string }[];
  /**
   * Keep `metadata.managedFields` on the objects of the controller's informer cache. Default false: dropped
   * as objects arrive (as controller-runtime's `TransformStripManagedFields`), which saves memory per
   * cached object; reads from the cache then have no managedFields (read live when you need them). A cache
   * given in `informers` (or an Operator's) has its own setting.
   */
  keepManagedFields?: boolean;
  /**
   * Stream initial lists through watches (watch-list, `sendInitialEvents`) where the API server serves them,
   * paged LISTs where it does not (see WatcherOptions.watchList). Default true. A cache given in
   * `informers` (or an Operator's) has its own setting.
   */
  watchList?: boolean;
  /**
   * What to do with the API server's `Warning` headers (a deprecated API or CRD version, a dropped unknown
   * field, an admission warning). Default: {@link loggingWarningHandler} — each distinct text logged once as
   * a warning, every one counted in `reconcilekit_api_warnings_total`. A function replaces it; `false`
   * drops them.
   */
  warningHandler?: WarningHandler | false;
  /**
   * Shared watches: controllers given the same cache share one list+watch and one store per
   * (apiVersion, kind, namespace, selectors). Default: a private cache. `Operator` passes its own.
   */
  informers?: InformerCache;
  /**
   * Decides retries after a failed pass (`exponentialBackoffRetryPolicy`, `DEFAULT_RETRY_POLICY`): it can
   * give up until the object changes. Default none: the unlimited per-key backoff of `rateLimiter`.
   */
  retryPolicy?: RetryPolicy;
}

/**
 * Who the live view (`debugPage`) answers besides loopback clients naming a loopback host.
 * @category Observability: logs, metrics, Events, health
 */
export interface DebugPageOptions {
  /** Bearer token admitting any client that sends `Authorization: Bearer <token>`. Default none. */
  token?: string;
  /**
   * Host names a tokenless loopback request may name in `Host` and `Origin` besides `localhost`,
   * `*.localhost`, `127.0.0.1` and `[::1]` (e.g. the name a dev container forwards the port under).
   * Default none: a web page on another name that resolves to 127.0.0.1 (DNS rebinding) is refused.
   */
  allowedHosts?: readonly string[];
}

/**
 * A field index to register on the shared cache (see `CoreConfig.indexes` and `indexField`).
 * @category Engine: Framework and ControllerCore
 */
export interface FieldIndexSpec<T extends KubernetesObject = KubernetesObject> {
  /** `group/version` of the indexed kind. */
  apiVersion: string;
  /** The indexed kind, e.g. `Website`. */
  kind: string;
  /** Index name, e.g. `spec.secretName`. */
  name: string;
  /** The values an object is found under (an empty array or undefined: not indexed). */
  fn: IndexFunc<T>;
}
