/**
 * Declarative operators (dcontroller's model): `DeclarativeOperator`, `OperatorGroup`, the spec types, pipelines and expressions. The embedded view server is loaded when an operator starts.
 *
 * @module reconcilekit/declarative
 */
export {
  DeclarativeOperator,
  type DeclarativeOperatorOptions,
  type OperatorStatus,
} from './declarative-operator.js';
export type { DeclarativeController, ControllerStatus } from './declarative-controller.js';
export { OperatorGroup, STATUS_CHANNEL_BUFFER_SIZE, type OperatorGroupOptions } from './operator-group.js';
export {
  ControllerError,
  isControllerError,
  trimErrorMessage,
  MAX_CONTROLLER_ERRORS,
  MAX_ERROR_MESSAGE_LENGTH,
} from './controller-error.js';
export {
  DeclarativeSpecError,
  isDeclarativeSpecError,
  ExpressionError,
  isExpressionError,
} from './declarative-spec-error.js';
export { evaluateExpression, type EvaluateExpressionOptions } from './compile-expression.js';
export { evaluatePipeline, type EvaluatePipelineOptions } from './evaluate-pipeline.js';
export { loadOperatorSpec, parseOperatorSpec } from './load-operator-spec.js';
export {
  ErrorRateLimiter,
  DEFAULT_ERROR_RATE_FIRST,
  DEFAULT_ERROR_RATE_INTERVAL_MS,
  type ErrorRateLimiterOptions,
} from './error-rate-limiter.js';
export { DEFAULT_VIEW_GROUP_SUFFIX, VIEW_VERSION, viewGroup } from './view-kinds.js';
export { RoutingObjectClient } from './routing-object-client.js';
export {
  MIN_CONTROLLERS,
  MAX_CONTROLLERS,
  MAX_SPEC_BYTES,
  MAX_SPEC_ALIAS_COUNT,
  MAX_SPEC_NODES,
  MAX_SPEC_DEPTH,
  MAX_JOIN_DOCUMENTS,
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
} from './operator-spec.js';
