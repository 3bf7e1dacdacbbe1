/**
 * Every default the engine applies, in one place, each with the reason it was chosen.
 * `docs/defaults.md` is the prose version of this module; keep the two in step.
 */

/** Reconcile workers per framework. One keeps ordering simple; per-key exclusivity holds at any count. */
export const DEFAULT_WORKERS = 1;

/** First per-key error backoff delay (client-go's per-item limiter: fast first retry for transient errors). */
export const DEFAULT_BACKOFF_BASE_DELAY_MS = 5;

/** Growth factor of the per-key error backoff. */
export const DEFAULT_BACKOFF_FACTOR = 2;

/** Cap of the per-key error backoff (1000 s, client-go's cap: a broken object is retried about every 17 min). */
export const DEFAULT_BACKOFF_MAX_DELAY_MS = 1_000_000;

/** Periodic resync of every cached object (operatorkit's 5 min: drift in external state is corrected). */
export const DEFAULT_RESYNC_PERIOD_MS = 5 * 60_000;

/** Relative jitter applied to each resync (±10 %), so objects and replicas do not resync in lock-step. */
export const DEFAULT_RESYNC_JITTER = 0.1;

/** How long `start()` waits for the first list before failing (controller-runtime's CacheSyncTimeout). */
export const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 2 * 60_000;

/** Time `stop()` gives in-flight reconciles before aborting them (controller-runtime's 30 s). */
export const DEFAULT_GRACEFUL_SHUTDOWN_MS = 30_000;

/** Leader election Lease duration: a standby takes over at most this long after the leader vanished. */
export const DEFAULT_LEASE_DURATION_MS = 15_000;

/** The leader gives up leadership if it could not renew within this long. */
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;

/** Interval between Lease acquire/renew attempts. */
export const DEFAULT_RETRY_PERIOD_MS = 2_000;

/** Prefix of the default finalizer name: `reconcilekit.io/<framework name>`. */
export const DEFAULT_FINALIZER_PREFIX = 'reconcilekit.io/';

/** Annotations that pause reconciliation when set to exactly "true" (ours and Cluster API's). */
export const DEFAULT_PAUSE_ANNOTATIONS: readonly string[] = Object.freeze([
  'reconcilekit.io/paused',
  'cluster.x-k8s.io/paused',
]);

/** The only annotation value that pauses (exact string match, as operatorkit ≥ 2.0.2). */
export const PAUSE_ANNOTATION_VALUE = 'true';

/**
 * How long a key whose finalizer we removed is remembered (3 × resync, as operatorkit): queued events
 * caused by the removal must not run the deletion a second time.
 */
export const DEFAULT_REMOVED_FINALIZER_MEMORY_MS = 3 * DEFAULT_RESYNC_PERIOD_MS;

/** Per-reconcile timeout; 0 means none (controller-runtime's default: off). */
export const DEFAULT_RECONCILE_TIMEOUT_MS = 0;

/** Health server bind host: loopback, so nothing is exposed unless asked. */
export const DEFAULT_HEALTH_HOST = '127.0.0.1';

/** Health server port (controller-runtime's metrics port). */
export const DEFAULT_HEALTH_PORT = 8080;

/** How long identical Warning Events are aggregated into one Event object (kube-rs' 6 min). */
export const DEFAULT_EVENT_AGGREGATION_MS = 6 * 60_000;
