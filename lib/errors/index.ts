export { InvalidConfigError, isInvalidConfig } from './invalid-config-error.js';
export { ExecutionFailedError, isExecutionFailed } from './execution-failed-error.js';
export { NoResourceSetError, isNoResourceSet } from './no-resource-set-error.js';
export { LoopDetectedError, isLoopDetected } from './loop-detected-error.js';
export { hasCause, MAX_CAUSE_DEPTH } from './has-cause.js';
