/**
 * The engine every front end runs on, for authors of front ends (docs/architecture.md, "Writing a front end"): `ControllerCore` and its parts, the pass body contract, config resolution, retry policies, predicates, watch sources, finalizers, pause and the engine's defaults. Operator authors use a front end instead; these names may change between minor versions as the engine evolves.
 *
 * @module reconcilekit/engine
 */
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
} from './defaults.js';
export { clientKey, cacheKey, eventRecorderKey, type RecordEvent } from './context-keys.js';
export { requeueAfter, requeueAfterKey } from './requeue.js';
export { ReconcileTimeoutError, isReconcileTimeout } from './reconcile-timeout-error.js';
export {
  finalizerName,
  hasFinalizer,
  addFinalizerPatch,
  removeFinalizerPatch,
  type JsonPatchOperation,
} from './finalizer-patch.js';
export { addFinalizer, removeFinalizer, type AddFinalizerResult } from './finalizers.js';
export { RemovedFinalizerMemory } from './removed-finalizer-memory.js';
export { isPaused, pauseAnnotation } from './pause.js';
export {
  ErrorConditionWriter,
  DEFAULT_ERROR_CONDITION_TYPE,
  type ErrorConditionWriterOptions,
} from './error-condition.js';
export { ownerKeys } from './owner-keys.js';
export { ControllerCore, type CoreParts } from './controller-core.js';
export type { PassBody, PassPlan, PassInfo, PassVerdict } from './pass-body.js';
export { resolveCoreConfig, type ResolvedCoreConfig, type CoreConfigUsage } from './resolve-core-config.js';
export {
  exponentialBackoffRetryPolicy,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  type RetryDecision,
} from './retry-policy.js';
export { TerminalError, isTerminalError } from './terminal-error.js';
export { predicates, type Predicate, type SourceEvent } from './predicates.js';
export { mappedKeys, type WatchSource, type MappedKey, type MapContext } from './watch-source.js';
export type { FieldIndexSpec } from './core-config.js';
export { groupKind } from './source-set.js';
export type { SharedResources } from './controller-core.js';
export {
  InformerCache,
  informerKey,
  type InformerCacheOptions,
  type InformerSource,
} from '../watch/informer-cache.js';
