/**
 * The grafana-app-sdk front end: `InformerController`, its watchers and reconcilers (simple, typed, opinionated), retry policies and errors.
 *
 * @module reconcilekit/informer-controller
 */
export { InformerController, type InformerPlanning } from './informer-controller.js';
export type { InformerControllerOptions, InformerControllerSource } from './informer-controller-options.js';
export type { ErrorHandler } from './informer-pass-body.js';
export { defaultErrorHandler } from './default-error-handler.js';
export { SimpleWatcher, type ResourceWatcher, type SimpleWatcherFunctions } from './resource-watcher.js';
export { SimpleReconciler, TypedReconciler, type TypedReconcilerOptions } from './simple-reconciler.js';
export {
  CannotCastError,
  isCannotCast,
  NilObjectError,
  isNilObject,
  InformerAlreadyAddedError,
  isInformerAlreadyAdded,
} from './informer-errors.js';
export {
  ResourceAction,
  reconcileActionFromResourceAction,
  resourceActionFromReconcileAction,
} from './resource-action.js';
export { opinionatedRetryDequeuePolicy, type RetryDequeuePolicy } from './retry-dequeue-policy.js';
export {
  defaultFinalizerSupplier,
  checkFinalizerName,
  type FinalizerSupplier,
  type FinalizerKind,
} from './finalizer-supplier.js';
export {
  OpinionatedReconciler,
  OPINIONATED_STATE_KEY,
  type OpinionatedReconcilerOptions,
} from './opinionated-reconciler.js';
export { OpinionatedWatcher, type OpinionatedWatcherOptions } from './opinionated-watcher.js';
export { InformerMetrics, INFORMER_DURATION_BUCKETS } from './informer-metrics.js';
