export { InvalidConfigError, isInvalidConfig } from './invalid-config-error.js';
export { ExecutionFailedError, isExecutionFailed } from './execution-failed-error.js';
export { NoResourceSetError, isNoResourceSet } from './no-resource-set-error.js';
export { LoopDetectedError, isLoopDetected } from './loop-detected-error.js';
export { hasCause, MAX_CAUSE_DEPTH } from './has-cause.js';
export { StaleObjectError, isStaleObject, DEFAULT_STALE_REQUEUE_MS } from './stale-object-error.js';
export {
  ConditionLockedError,
  isConditionLocked,
  DEFAULT_LOCKED_REQUEUE_MS,
} from './condition-locked-error.js';
export { AlreadyOwnedError, isAlreadyOwned } from './already-owned-error.js';
export { retrySoonDelay } from './retry-soon.js';
export { KindNotServedError, isKindNotServed } from './kind-not-served-error.js';
export { failureSite, describeFailureSite, type FailureSite } from './failure-site.js';
export { StartTimeoutError, MemberStartError, isStartTimeout, isMemberStart } from './member-start-error.js';
