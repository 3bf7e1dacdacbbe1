// reconcilekit — Kubernetes operators as CRUD resources.
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
} from './errors/index.js';
export { ReconcileContext, type ReconcileContextOptions } from './context/reconcile-context.js';
export { defineContextKey, type ContextKey } from './context/context-key.js';
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
export type { KubeObject } from './resource/kube-object.js';
export type { Resource } from './resource/resource.js';
export {
  CRUD_STEPS,
  type Awaitable,
  type CRUDResourceOps,
  type CRUDStep,
  type MaybePatch,
} from './resource/crud-resource-ops.js';
export { CRUDResource, type CRUDResourceOptions } from './resource/crud-resource.js';
export { Patch, PATCH_PARTS, type PatchPart } from './resource/patch.js';
export { processUpdate, processDelete } from './resource/process.js';
export {
  underlying,
  isWrappedResource,
  MAX_WRAP_DEPTH,
  type WrappedResource,
} from './resource/wrappers/wrapped-resource.js';
export { WrappedCRUDResource } from './resource/wrappers/wrapped-crud-resource.js';
export {
  decorateResource,
  type OperationDecorator,
  type ResourceOperation,
} from './resource/wrappers/decorate-resource.js';
export {
  wrapWithRetry,
  retryResource,
  defaultRetryBackOffFactory,
  DEFAULT_RETRY_ATTEMPTS,
  type RetryOptions,
} from './resource/wrappers/retry.js';
export {
  wrapWithMetrics,
  metricsResource,
  RESOURCE_OPERATION_TOTAL,
  RESOURCE_OPERATION_DURATION_SECONDS,
  DEFAULT_OPERATION_DURATION_BUCKETS,
  type MetricsOptions,
} from './resource/wrappers/metrics.js';
export { ResourceSet, type ResourceSetOptions } from './router/resource-set.js';
export { ResourceRouter, describeObject, type ResourceRouterOptions } from './router/resource-router.js';
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
export { serialiseError, type SerialisedError } from './observability/logger-serialise-errors.js';

// --- engine: kube, watch, queue, observability, leader, framework (issue: Framework) ---
export const VERSION = '0.1.0';
