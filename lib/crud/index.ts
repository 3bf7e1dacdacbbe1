/**
 * The CRUD front end (operatorkit's model): `Framework` and its config, `CRUDResource` and its steps, `Patch`, the resource wrappers, `ResourceSet` and `ResourceRouter`.
 *
 * @module reconcilekit/crud
 */
export type { KubeObject } from './resource/kube-object.js';
export type { Resource } from './resource/resource.js';
export {
  CRUD_STEPS,
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
export { Framework } from './framework.js';
export type {
  FrameworkConfig,
  CoreConfig,
  FrameworkResource,
  OwnedResource,
  LeaderElectionOptions,
  HealthServerConfig,
} from './framework-config.js';
export { resolveFrameworkConfig, type ResolvedFrameworkConfig } from './resolve-config.js';
