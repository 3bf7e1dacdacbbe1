/**
 * The reconcile-function front end: `Controller`, its config, and the reconcile request, result and error types.
 *
 * @module reconcilekit/controller
 */
export { Controller } from './controller.js';
export type { ControllerConfig } from './controller-config.js';
export { resolveControllerConfig, type ResolvedControllerConfig } from './resolve-controller-config.js';
export {
  ReconcileAction,
  type ReconcileRequest,
  type ReconcileResult,
  type ReconcileFunction,
  type Reconciler,
} from './reconcile-types.js';
export { ReconcileError, isReconcileError, type ReconcileErrorOptions } from './reconcile-error.js';
