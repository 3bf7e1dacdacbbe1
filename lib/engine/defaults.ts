import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
} from '../leader/leader-elector.js';
import { DEFAULT_EVENT_AGGREGATION_WINDOW_MS } from '../observability/event-recorder.js';
import { DEFAULT_CACHE_SYNC_TIMEOUT_MS } from '../watch/informer.js';
import { DEFAULT_ERROR_CONDITION_TYPE } from './error-condition.js';

/**
 * Every default the engine applies, in one place, each with the reason it was chosen.
 * `docs/defaults.md` is the prose version of this module; keep the two in step.
 */

/**
 * Defined next to the code that uses them and re-exported here so this module lists every default:
 * cache sync timeout 2 min (controller-runtime's CacheSyncTimeout); Lease duration 15 s (a standby takes
 * over within it plus about two retry periods after the leader vanished, ≈ 19 s; about at once after a
 * graceful release), renew deadline 10 s, retry period 2 s (client-go's leader election); identical Events
 * aggregated for 6 min (kube-rs' recorder); error condition `Ready` (False on failing objects).
 */
export {
  DEFAULT_ERROR_CONDITION_TYPE,
  DEFAULT_EVENT_AGGREGATION_WINDOW_MS,
  DEFAULT_CACHE_SYNC_TIMEOUT_MS,
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
};

/**
 * Reconcile workers per framework. One keeps ordering simple; per-key exclusivity holds at any count.
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_WORKERS = 1;

/**
 * First per-key error backoff delay (client-go's per-item limiter: fast first retry for transient errors).
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_REQUEUE_BASE_DELAY_MS = 5;

/**
 * Growth factor of the per-key error backoff.
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_REQUEUE_FACTOR = 2;

/**
 * Cap of the per-key error backoff (1000 s, client-go's cap: a broken object is retried about every 17 min).
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_REQUEUE_MAX_DELAY_MS = 1_000_000;

/**
 * Periodic resync of every cached object (operatorkit's 5 min: drift in external state is corrected).
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_RESYNC_PERIOD_MS = 5 * 60_000;

/**
 * Relative jitter applied to each resync (±10 %), so objects and replicas do not resync in lock-step.
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_RESYNC_JITTER = 0.1;

/**
 * Time `stop()` gives in-flight reconciles before aborting them (controller-runtime's 30 s).
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_GRACEFUL_SHUTDOWN_MS = 30_000;

/**
 * Prefix of the default finalizer name: `reconcilekit.io/<framework name>`.
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_FINALIZER_PREFIX = 'reconcilekit.io/';

/**
 * Annotations that pause reconciliation when set to exactly "true" (ours and Cluster API's).
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_PAUSE_ANNOTATIONS: readonly string[] = Object.freeze([
  'reconcilekit.io/paused',
  'cluster.x-k8s.io/paused',
]);

/**
 * The only annotation value that pauses (exact string match, as operatorkit ≥ 2.0.2).
 * @category Engine: Framework and ControllerCore
 */
export const PAUSE_ANNOTATION_VALUE = 'true';

/**
 * How long a key whose finalizer we removed is remembered (3 × resync, as operatorkit): queued events
 * caused by the removal must not run the deletion a second time.
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_REMOVED_FINALIZER_MEMORY_MS = 3 * DEFAULT_RESYNC_PERIOD_MS;

/**
 * Minimum time between the starts of two reconciles of one object; 0 disables. An idle object still runs at
 * once (a lone change keeps its latency); only an object that changes again while or right after it runs
 * waits until 100 ms after its previous run started, so a burst of changes costs at most ~10 runs/s per
 * object instead of one run per reconcile time (bench workload 3: ≤ 10 reconciles for 1,000 patches).
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_MIN_RECONCILE_INTERVAL_MS = 100;

/**
 * Per-reconcile timeout: 5 min, what controller-runtime users commonly set (its own default is off). A
 * reconcile that hangs past it is aborted through its signal and counted as an error, so one stuck object
 * cannot hold a worker (with the default single worker: every object) forever. 0 disables.
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_RECONCILE_TIMEOUT_MS = 5 * 60_000;

/**
 * Readiness says `workers-stuck` once every worker has been on one pass longer than the reconcile timeout,
 * or than this when the timeout is off: a controller that makes no progress is not ready.
 */
export const DEFAULT_STUCK_PASS_MS = 5 * 60_000;

/**
 * Readiness says `stuck-deletions` for an object Terminating with our finalizer for longer than this (a
 * cleanup that keeps failing, or a finalizer removal that never lands).
 */
export const DEFAULT_STUCK_DELETION_MS = 10 * 60_000;

/**
 * Health server bind host: loopback, so nothing is exposed unless asked.
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_HEALTH_HOST = '127.0.0.1';

/**
 * Health server port (controller-runtime's metrics port).
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_HEALTH_PORT = 8080;
