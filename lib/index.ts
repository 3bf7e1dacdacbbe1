/**
 * Kubernetes operators in TypeScript: the engine, its front ends (CRUD resources, reconcile functions, informer controllers, phases, declarative operators), the client, watches and observability.
 *
 * @module reconcilekit
 */

// Re-exports only; one concept per module. Sections are owned by their layer.
// --- core: util, context, resource, router, errors, logging (issue: CRUD core) ---
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
export type { KubeObject } from './crud/resource/kube-object.js';
export type { Resource } from './crud/resource/resource.js';
export type { Awaitable } from './util/awaitable.js';
export {
  CRUD_STEPS,
  type CRUDResourceOps,
  type CRUDStep,
  type MaybePatch,
} from './crud/resource/crud-resource-ops.js';
export { CRUDResource, type CRUDResourceOptions } from './crud/resource/crud-resource.js';
export { Patch, PATCH_PARTS, type PatchPart } from './crud/resource/patch.js';
export { processUpdate, processDelete } from './crud/resource/process.js';
export {
  underlying,
  isWrappedResource,
  MAX_WRAP_DEPTH,
  type WrappedResource,
} from './crud/resource/wrappers/wrapped-resource.js';
export { WrappedCRUDResource } from './crud/resource/wrappers/wrapped-crud-resource.js';
export {
  decorateResource,
  type OperationDecorator,
  type ResourceOperation,
} from './crud/resource/wrappers/decorate-resource.js';
export {
  wrapWithRetry,
  retryResource,
  defaultRetryBackOffFactory,
  DEFAULT_RETRY_ATTEMPTS,
  type RetryOptions,
} from './crud/resource/wrappers/retry.js';
export {
  wrapWithMetrics,
  metricsResource,
  RESOURCE_OPERATION_TOTAL,
  RESOURCE_OPERATION_DURATION_SECONDS,
  DEFAULT_OPERATION_DURATION_BUCKETS,
  type MetricsOptions,
} from './crud/resource/wrappers/metrics.js';
export { ResourceSet, type ResourceSetOptions } from './crud/router/resource-set.js';
export { ResourceRouter, describeObject, type ResourceRouterOptions } from './crud/router/resource-router.js';
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

// --- engine: kube, watch, queue, observability, leader, framework (issue: Framework) ---
/**
 * The package version.
 * @category Utilities
 */
export const VERSION = '0.1.0';
// engine/plumbing: kube, watch, queue, leader
export type { ResourceRef, ObjectRef } from './kube/resource-ref.js';
export {
  loadKubeConfig,
  KubeConfigNotFoundError,
  isKubeConfigNotFound,
  KubeConfigLoadError,
  isKubeConfigLoadError,
} from './kube/kube-config.js';
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
  type KubeRequest,
  type KubeTransportOptions,
} from './kube/kube-transport.js';
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
// end engine/plumbing
// engine/framework: Framework, finalizers, pause, status conditions, metrics, events, health, signals
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
export { Framework } from './crud/framework.js';
export type {
  FrameworkConfig,
  CoreConfig,
  FrameworkResource,
  OwnedResource,
  LeaderElectionOptions,
  HealthServerConfig,
} from './crud/framework-config.js';
export type { DebugPageOptions } from './engine/core-config.js';
export { resolveFrameworkConfig, type ResolvedFrameworkConfig } from './crud/resolve-config.js';
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
export { RemovedFinalizerMemory } from './engine/removed-finalizer-memory.js';
export { isPaused, pauseAnnotation } from './engine/pause.js';
export {
  setCondition,
  getCondition,
  isConditionTrue,
  removeCondition,
  upsertCondition,
  findConditionByStatus,
  isConditionPresentAndEqual,
  isAnyConditionWithStatus,
  areAllConditionsWithStatus,
  type StatusCondition,
  type StatusConditionInput,
} from './status/status-conditions.js';
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
  type HealthServerOptions,
  type HealthCheck,
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
// end engine/framework

// --- controller core and front ends (issue 10) ---
export { ControllerCore, type CoreParts } from './engine/controller-core.js';
export type { PassBody, PassPlan, PassInfo, PassVerdict } from './engine/pass-body.js';
export {
  resolveCoreConfig,
  type ResolvedCoreConfig,
  type CoreConfigUsage,
} from './engine/resolve-core-config.js';
export {
  exponentialBackoffRetryPolicy,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  type RetryDecision,
} from './engine/retry-policy.js';
export { TerminalError, isTerminalError } from './engine/terminal-error.js';
export { predicates, type Predicate, type SourceEvent } from './engine/predicates.js';
export { mappedKeys, type WatchSource, type MappedKey } from './engine/watch-source.js';
export { groupKind } from './engine/source-set.js';
export {
  InformerCache,
  informerKey,
  type InformerCacheOptions,
  type InformerSource,
} from './watch/informer-cache.js';
export { Controller } from './controller/controller.js';
export type { ControllerConfig } from './controller/controller-config.js';
export {
  resolveControllerConfig,
  type ResolvedControllerConfig,
} from './controller/resolve-controller-config.js';
export {
  ReconcileAction,
  type ReconcileRequest,
  type ReconcileResult,
  type ReconcileFunction,
  type Reconciler,
} from './controller/reconcile-types.js';
export {
  ReconcileError,
  isReconcileError,
  type ReconcileErrorOptions,
} from './controller/reconcile-error.js';
export type { SharedResources } from './engine/controller-core.js';
export { Operator } from './operator/operator.js';
export {
  DEFAULT_MEMBER_START_TIMEOUT_MS,
  DEFAULT_MEMBER_STOP_TIMEOUT_MS,
  type OperatorOptions,
  type OperatorController,
  type AddControllerOptions,
} from './operator/operator-options.js';

// --- status, owned children, bound object and guard (issue 16: operator-sdk-extra / sequencer parity) ---
export {
  validateConditionType,
  isValidConditionReason,
  boundConditionReason,
  boundConditionMessage,
  MAX_CONDITION_TYPE_LENGTH,
  MAX_CONDITION_REASON_LENGTH,
  MAX_CONDITION_MESSAGE_LENGTH,
} from './status/condition-names.js';
export { StatusWriter, type StatusWriterOptions } from './status/status-writer.js';
export { setControllerReference } from './status/controller-reference.js';
export { bindObject, BoundObject, type BindObjectOptions, type EventSink } from './bound/bound-object.js';
export type { GuardTask, GuardTaskResult, GuardOptions } from './bound/guard.js';
export {
  DEFAULT_INSTANCE_LABEL,
  DEFAULT_GUARD_LOCK_TTL_MS,
  LOCKED_REASON,
  ERROR_REASON,
  LOCK_EXPIRED_REASON,
} from './bound/defaults.js';
export { instanceLabelValue } from './bound/instance-label.js';
export type {
  StepResult,
  K8sDiff,
  Diff,
  Data,
  K8sPhaseReconciler,
  K8sReconcilerHooks,
  RemoteResourceHooks,
} from './phases/phase-types.js';
export { StdK8sReconciler, type StdK8sReconcilerOptions } from './phases/std-k8s-reconciler.js';
export { StdReconciler, type StdReconcilerOptions } from './phases/std-reconciler.js';
export { PhaseError, isPhaseError } from './phases/phase-error.js';
// end issue 16

// --- declarative operators (issue 17) ---
export {
  DeclarativeOperator,
  type DeclarativeOperatorOptions,
  type OperatorStatus,
} from './declarative/declarative-operator.js';
export type { DeclarativeController, ControllerStatus } from './declarative/declarative-controller.js';
export {
  OperatorGroup,
  STATUS_CHANNEL_BUFFER_SIZE,
  type OperatorGroupOptions,
} from './declarative/operator-group.js';
export {
  ControllerError,
  isControllerError,
  trimErrorMessage,
  MAX_CONTROLLER_ERRORS,
  MAX_ERROR_MESSAGE_LENGTH,
} from './declarative/controller-error.js';
export {
  DeclarativeSpecError,
  isDeclarativeSpecError,
  ExpressionError,
  isExpressionError,
} from './declarative/declarative-spec-error.js';
export { evaluateExpression, type EvaluateExpressionOptions } from './declarative/compile-expression.js';
export { evaluatePipeline, type EvaluatePipelineOptions } from './declarative/evaluate-pipeline.js';
export { loadOperatorSpec, parseOperatorSpec } from './declarative/load-operator-spec.js';
export {
  ErrorRateLimiter,
  DEFAULT_ERROR_RATE_FIRST,
  DEFAULT_ERROR_RATE_INTERVAL_MS,
  type ErrorRateLimiterOptions,
} from './declarative/error-rate-limiter.js';
export { DEFAULT_VIEW_GROUP_SUFFIX, VIEW_VERSION, viewGroup } from './declarative/view-kinds.js';
export { RoutingObjectClient } from './declarative/routing-object-client.js';
export {
  MIN_CONTROLLERS,
  MAX_CONTROLLERS,
  type OperatorSpec,
  type ControllerSpec,
  type ResourceSpec,
  type SourceSpec,
  type TargetSpec,
  type PredicateSpec,
  type LabelSelectorSpec,
  type PipelineSpec,
  type Stage,
  type Expression,
} from './declarative/operator-spec.js';

// --- grafana-app-sdk front end (issue 15) ---
export { InformerController, type InformerPlanning } from './informer-controller/informer-controller.js';
export type {
  InformerControllerOptions,
  InformerControllerSource,
} from './informer-controller/informer-controller-options.js';
export type { ErrorHandler } from './informer-controller/informer-pass-body.js';
export { defaultErrorHandler } from './informer-controller/default-error-handler.js';
export {
  SimpleWatcher,
  type ResourceWatcher,
  type SimpleWatcherFunctions,
} from './informer-controller/resource-watcher.js';
export {
  SimpleReconciler,
  TypedReconciler,
  type TypedReconcilerOptions,
} from './informer-controller/simple-reconciler.js';
export {
  CannotCastError,
  isCannotCast,
  NilObjectError,
  isNilObject,
  InformerAlreadyAddedError,
  isInformerAlreadyAdded,
} from './informer-controller/informer-errors.js';
export {
  ResourceAction,
  reconcileActionFromResourceAction,
  resourceActionFromReconcileAction,
} from './informer-controller/resource-action.js';
export {
  opinionatedRetryDequeuePolicy,
  type RetryDequeuePolicy,
} from './informer-controller/retry-dequeue-policy.js';
export {
  defaultFinalizerSupplier,
  checkFinalizerName,
  type FinalizerSupplier,
  type FinalizerKind,
} from './informer-controller/finalizer-supplier.js';
export {
  OpinionatedReconciler,
  OPINIONATED_STATE_KEY,
  type OpinionatedReconcilerOptions,
} from './informer-controller/opinionated-reconciler.js';
export {
  OpinionatedWatcher,
  type OpinionatedWatcherOptions,
} from './informer-controller/opinionated-watcher.js';
export { InformerMetrics, INFORMER_DURATION_BUCKETS } from './informer-controller/informer-metrics.js';

// helpers: create-or-update (issue 12)
export {
  createOrUpdate,
  type CreateOrUpdateOptions,
  type CreateOrUpdateResult,
} from './kube/create-or-update.js';
// end helpers
export { defaultHealthHost, SERVICE_ACCOUNT_DIR, IN_POD_HEALTH_HOST } from './engine/default-health-host.js';

// plan: what an operator would change, without changing anything (issue 19).
export {
  plan,
  type Plan,
  type PlanOptions,
  type PlannedObject,
  type PlannedResource,
  type PlannedPart,
  type Plannable,
} from './plan/plan.js';
export { NotPlannableError } from './plan/planning-client.js';
export { renderDiff, type RenderDiffOptions } from './plan/render-diff.js';
export type { FieldChange } from './plan/field-diff.js';

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
