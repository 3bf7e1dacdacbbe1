/**
 * Phase reconcilers on `Controller` (operator-sdk-extra's model): `StdK8sReconciler` (ordered phases over Kubernetes children) and `StdReconciler` (one remote resource).
 *
 * @module reconcilekit/phases
 */
export type {
  StepResult,
  K8sDiff,
  Diff,
  Data,
  K8sPhaseReconciler,
  K8sReconcilerHooks,
  RemoteResourceHooks,
} from './phase-types.js';
export { StdK8sReconciler, type StdK8sReconcilerOptions } from './std-k8s-reconciler.js';
export { StdReconciler, type StdReconcilerOptions } from './std-reconciler.js';
export { PhaseError, isPhaseError } from './phase-error.js';
