/**
 * Kubernetes operators in TypeScript: the engine, its front ends (CRUD resources, reconcile functions, informer controllers, phases, declarative operators), the client, watches and observability.
 *
 * @module reconcilekit
 */

// Re-exports only. Each front end and tool also has its own entry (reconcilekit/crud, /controller,
// /informer-controller, /phases, /bound, /declarative, /operator, /plan, /status), re-exported here whole;
// the engine's internals for front-end authors are in reconcilekit/engine only; the embedded API server,
// the test helpers, typed kinds and the webhook server are in their own entries only, so this one stays light.

// Shared vocabulary: utilities, typed errors, the reconcile context and its flags, logging.
export { sleep } from './util/sleep.js';
export { jitter } from './util/jitter.js';
export {
  backOffAbortable,
  backOffDelay,
  defaultBackOffFactory,
  DEFAULT_BACKOFF_ATTEMPTS,
  DEFAULT_BACKOFF_MAX_DELAY_MS,
  DEFAULT_BACKOFF_MULTIPLIER,
  DEFAULT_BACKOFF_STARTING_DELAY_MS,
  type BackOffFactory,
  type BackOffOptions,
} from './util/backoff.js';
export {
  InvalidConfigError,
  isInvalidConfig,
  ExecutionFailedError,
  isExecutionFailed,
  NoResourceSetError,
  isNoResourceSet,
  LoopDetectedError,
  isLoopDetected,
  hasCause,
  StaleObjectError,
  isStaleObject,
  DEFAULT_STALE_REQUEUE_MS,
  ConditionLockedError,
  isConditionLocked,
  DEFAULT_LOCKED_REQUEUE_MS,
  AlreadyOwnedError,
  isAlreadyOwned,
  retrySoonDelay,
  KindNotServedError,
  isKindNotServed,
  failureSite,
  describeFailureSite,
  type FailureSite,
  StartTimeoutError,
  MemberStartError,
  isStartTimeout,
  isMemberStart,
} from './errors/index.js';
export { ReconcileContext, type ReconcileContextOptions } from './context/reconcile-context.js';
export { defineContextKey, type ContextKey } from './context/context-key.js';
export { stepGateKey, checkStepGate } from './context/step-gate.js';
export { defineFlag, type Flag } from './context/flag.js';
export {
  reconciliationCanceled,
  resourceCanceled,
  updateAllowed,
  updateNecessary,
  deletionAllowed,
  finalizersKept,
  BUILTIN_FLAGS,
  installFlags,
} from './context/flags.js';

// The CRUD front end.
export * from './crud/index.js';

export type { Awaitable } from './util/awaitable.js';

export {
  createLogger,
  DEFAULT_LOG_LEVEL,
  LOG_LEVELS,
  LOG_LEVEL_ENV,
  type Logger,
  type LoggerOptions,
  type LogLevel,
} from './observability/logger.js';
export { silentLogger } from './observability/logger-silent.js';
export { LOG_FORMATS, LOG_FORMAT_ENV, type LogFormat } from './observability/logger-console-format.js';
export { serialiseError, type SerialisedError } from './observability/logger-serialise-errors.js';

// The Kubernetes client, watches and caches, the work queue, leader election.
/**
 * The package version.
 * @category Utilities
 */
export const VERSION = '0.1.0';
export type { ResourceRef, ObjectRef } from './kube/resource-ref.js';
export {
  loadKubeConfig,
  readKubeConfig,
  KubeConfigNotFoundError,
  isKubeConfigNotFound,
  KubeConfigLoadError,
  isKubeConfigLoadError,
} from './kube/kube-config.js';
export type { LoadedKubeConfig } from './kube/loaded-kube-config.js';
export type { KubeconfigUserExtras } from './kube/kubeconfig-extras.js';
export {
  ApiError,
  CONNECTION_ERROR_REASON,
  isApiError,
  isNotFound,
  isConflict,
  isAlreadyExists,
  isGone,
  isForbidden,
  isUnauthorized,
  isTooManyRequests,
  isServerError,
  isConnectionError,
  type ApiErrorInit,
} from './kube/api-error.js';
export {
  KubeTransport,
  DEFAULT_USER_AGENT,
  DEFAULT_MAX_FREE_SOCKETS,
  PARTIAL_OBJECT_METADATA_ACCEPT,
  PARTIAL_OBJECT_METADATA_LIST_ACCEPT,
  type KubeRequest,
  type KubeTransportOptions,
} from './kube/kube-transport.js';
export {
  loggingWarningHandler,
  parseWarningHeaders,
  API_WARNINGS_METRIC,
  MAX_REMEMBERED_WARNINGS,
  type ApiWarning,
  type WarningHandler,
  type LoggingWarningHandlerOptions,
} from './kube/api-warnings.js';
export {
  ObjectClient,
  DEFAULT_FIELD_MANAGER,
  PATCH_CONTENT_TYPES,
  type PatchType,
  type ObjectClientOptions,
  type GetOptions,
  type ListOptions,
  type ObjectList,
  type WriteOptions,
  type PatchOptions,
  type DeleteOptions,
  type ApplyOptions,
  type WatchRequestOptions,
} from './kube/object-client.js';
export type { CacheReader } from './kube/cache-reader.js';
export {
  keepAliveConfiguration,
  makeKeepAliveApiClient,
  makeKeepAliveObjectApi,
} from './kube/keep-alive-api.js';
export { Store, objectKey, splitObjectKey } from './watch/store.js';
export { CachedReads, type CachedReadsOptions, type KindRef } from './watch/cached-reads.js';
export { OwnWrites, DEFAULT_OWN_WRITE_TTL_MS, resourceVersionAtLeast } from './watch/own-writes.js';
export type { WatchEvent } from './watch/watch-event.js';
export { WatcherMetrics, WATCH_EVENT_TYPES } from './watch/metrics.js';
export {
  DEFAULT_LIST_PAGE_SIZE,
  DEFAULT_REPLACE_CHUNK_SIZE,
  DEFAULT_WATCH_BACKOFF_INITIAL_MS,
  DEFAULT_WATCH_BACKOFF_FACTOR,
  DEFAULT_WATCH_BACKOFF_MAX_MS,
  DEFAULT_WATCH_BACKOFF_RESET_MS,
  DEFAULT_WATCH_BACKOFF_JITTER,
  DEFAULT_WATCH_TIMEOUT_RANGE_SECONDS,
  DEFAULT_WATCH_CLIENT_GRACE_MS,
  type WatcherOptions,
} from './watch/watcher-options.js';
export { Watcher } from './watch/watcher.js';
export { IndexNotFoundError, type IndexFunc } from './watch/field-index.js';
export {
  Informer,
  CacheSyncTimeoutError,
  isCacheSyncTimeout,
  DEFAULT_CACHE_SYNC_TIMEOUT_MS,
} from './watch/informer.js';
export {
  ExponentialRateLimiter,
  DEFAULT_RATE_LIMIT_BASE_DELAY_MS,
  DEFAULT_RATE_LIMIT_FACTOR,
  DEFAULT_RATE_LIMIT_MAX_DELAY_MS,
  type RateLimiter,
  type ExponentialRateLimiterOptions,
} from './queue/rate-limiter.js';
export { WorkQueue, type WorkQueueOptions } from './queue/work-queue.js';
export {
  DEFAULT_PRIORITY,
  LOW_PRIORITY,
  DEFAULT_AGING_EVERY,
  DEFAULT_LOW_PRIORITY_AFTER_MS,
  WORK_QUEUE_ORDERS,
  type WorkQueueOrder,
} from './queue/priority.js';
export { WorkQueueMetrics } from './queue/metrics.js';
export {
  LeaderElector,
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  type LeaderElectorOptions,
  type LeaderCallbacks,
  LeaseExpiredError,
  isLeaseExpired,
} from './leader/leader-elector.js';
export type { WriteFence } from './kube/object-client.js';
export { LeaderElectionMetrics } from './leader/metrics.js';
export * from './sharding/index.js';

// What every front end shares from the engine (the rest, for front-end authors: reconcilekit/engine),
// status helpers, the process host, metrics, Events, health and the live view.
export {
  DEFAULT_WORKERS,
  DEFAULT_REQUEUE_BASE_DELAY_MS,
  DEFAULT_REQUEUE_FACTOR,
  DEFAULT_REQUEUE_MAX_DELAY_MS,
  DEFAULT_RESYNC_PERIOD_MS,
  DEFAULT_RESYNC_JITTER,
  DEFAULT_GRACEFUL_SHUTDOWN_MS,
  DEFAULT_FINALIZER_PREFIX,
  DEFAULT_PAUSE_ANNOTATIONS,
  PAUSE_ANNOTATION_VALUE,
  DEFAULT_REMOVED_FINALIZER_MEMORY_MS,
  DEFAULT_RECONCILE_TIMEOUT_MS,
  DEFAULT_MIN_RECONCILE_INTERVAL_MS,
  DEFAULT_HEALTH_HOST,
  DEFAULT_HEALTH_PORT,
} from './engine/defaults.js';

export { clientKey, cacheKey, eventRecorderKey, type RecordEvent } from './engine/context-keys.js';
export { requeueAfter, requeueAfterKey } from './engine/requeue.js';
export { ReconcileTimeoutError, isReconcileTimeout } from './engine/reconcile-timeout-error.js';
export { errorReason, DEFAULT_ERROR_REASON } from './errors/error-message.js';
export {
  finalizerName,
  hasFinalizer,
  addFinalizerPatch,
  removeFinalizerPatch,
  type JsonPatchOperation,
} from './engine/finalizer-patch.js';
export { addFinalizer, removeFinalizer, type AddFinalizerResult } from './engine/finalizers.js';

export { isPaused, pauseAnnotation } from './engine/pause.js';
export * from './status/index.js';
export {
  ErrorConditionWriter,
  DEFAULT_ERROR_CONDITION_TYPE,
  type ErrorConditionWriterOptions,
} from './engine/error-condition.js';
export { ensureCrd, CrdNamesNotAcceptedError } from './kube/ensure-crd.js';
export { ownerKeys } from './engine/owner-keys.js';
export {
  handleSignals,
  DEFAULT_SHUTDOWN_SIGNALS,
  type HandleSignalsOptions,
  type SignalProcess,
  type Stoppable,
} from './host/handle-signals.js';
export { runUntilSignal, type Runnable } from './host/run-until-signal.js';
export {
  ControllerMetrics,
  isPanic,
  RECONCILE_TIME_BUCKETS,
  type ControllerMetricsOptions,
  type ReconcileResultLabel,
  type FrameworkEvent,
} from './observability/controller-metrics.js';
export {
  EventRecorder,
  DEFAULT_EVENT_AGGREGATION_WINDOW_MS,
  DEFAULT_EVENT_CACHE_SIZE,
  MAX_EVENT_MESSAGE_LENGTH,
  type EventClient,
  type EventRecorderOptions,
  type RecordedEvent,
} from './observability/event-recorder.js';
export {
  HealthServer,
  HEALTH_CHECK_TIMEOUT_MS,
  DEFAULT_MAX_EVENT_LOOP_BLOCK_MS,
  type HealthServerOptions,
  type HealthCheck,
  type ProbeThread,
} from './observability/health-server.js';
export { addProcessMetrics } from './observability/process-metrics.js';
export {
  HistoryRecorder,
  DEBUG_PAGE_ENV,
  DEFAULT_DEBUG_MAX_OBJECTS,
  DEFAULT_DEBUG_PASSES_PER_OBJECT,
  DEBUG_ERROR_CHARS,
  DEBUG_DETAIL_PASSES,
  DEBUG_DETAIL_WINDOW_MS,
  DEFAULT_DEBUG_EVENTS,
  DEBUG_NOTIFY_INTERVAL_MS,
  DEBUG_NOTIFY_MAX_OBJECTS,
  type DebugEvent,
  type PassRecord,
  type ObjectHistory,
  type ObjectSummary,
  type HistoryRecorderOptions,
} from './debug/history-recorder.js';
export { type DebugControllerState, type DebugSource } from './debug/debug-routes.js';
export { DEFAULT_DEBUG_MAX_STREAMS, DEBUG_STREAM_BUFFER_BYTES } from './debug/debug-streams.js';
export { DEBUG_MAX_TRIGGERS, type PassTrigger, type TriggerReason } from './debug/pass-trigger.js';
export { type ResourceTrace, type AppliedPart } from './context/pass-trace.js';

export {
  exponentialBackoffRetryPolicy,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  type RetryDecision,
} from './engine/retry-policy.js';
export { TerminalError, isTerminalError } from './engine/terminal-error.js';
export { predicates, type Predicate, type SourceEvent } from './engine/predicates.js';
export { mappedKeys, type WatchSource, type MappedKey, type MapContext } from './engine/watch-source.js';
export type { FieldIndexSpec } from './engine/core-config.js';

export { InformerCache, type InformerCacheOptions, type InformerSource } from './watch/informer-cache.js';

// The other front ends, the operator host and plan.
export * from './controller/index.js';

export * from './operator/index.js';

export * from './bound/index.js';

export * from './phases/index.js';

export * from './declarative/index.js';

export * from './informer-controller/index.js';

export {
  createOrUpdate,
  type CreateOrUpdateOptions,
  type CreateOrUpdateResult,
} from './kube/create-or-update.js';
export { defaultHealthHost, SERVICE_ACCOUNT_DIR, IN_POD_HEALTH_HOST } from './engine/default-health-host.js';

export * from './plan/index.js';

// kinds: a kind defined once (TypeBox schemas) → types, CRD, validation, typed client. The schema builders
// (`Type`, `KubeType`) come from reconcilekit/kinds only: they load TypeBox (~20 MB, ~1 s on a busy machine),
// which an operator that defines no kinds should not pay for at import.
export {
  defineKind,
  isKind,
  isKindVersion,
  type Kind,
  type KindVersion,
  type ObjectOf,
  type SpecOf,
  type StatusOf,
  type NewObjectOf,
  type ApplyConfigurationOf,
} from './kinds/define-kind.js';
export type { KindOptions, KindVersionOptions } from './kinds/kind-options.js';
export { KindDefinitionError, isKindDefinitionError } from './kinds/kind-definition-error.js';
export {
  KindValidationError,
  isKindValidationError,
  type KindAdmission,
  type KindFieldCause,
} from './kinds/kind-validation.js';
export type {
  CelRule,
  CrdSchema,
  CrdVersion,
  CustomResourceDefinition,
  PrinterColumn,
  ScaleSubresource,
} from './kinds/crd-types.js';
export type { KubeCondition } from './kinds/kube-type.js';
export type { RbacDeclaration, RbacUse, RbacVerb } from './kinds/rbac-declaration.js';
export type {
  KindObject,
  NewKindObject,
  ApplyConfiguration,
  ApplyMetadata,
  DeepPartial,
  TypedResource,
} from './kube/kind-object.js';
export {
  KindClient,
  kindClient,
  type KindStatusClient,
  type KindWatchEvent,
  type NamespaceOption,
} from './kube/kind-client.js';

// Admission and conversion webhooks the operator serves (docs/webhooks.md). node-forge, which writes the
// operator's own CA, loads when a CA is made, not at import. `JsonPatchOperation` stays the engine's type
// above (a superset of the patches a defaulter answers with).
export * from './webhooks/index.js';
