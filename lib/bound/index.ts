/**
 * One object bound to one condition (sequencer's model): `bindObject`, `BoundObject` and `guard` around external side effects.
 *
 * @module reconcilekit/bound
 */
export { bindObject, BoundObject, type BindObjectOptions, type EventSink } from './bound-object.js';
export type { GuardTask, GuardTaskResult, GuardOptions } from './guard.js';
export {
  DEFAULT_INSTANCE_LABEL,
  DEFAULT_GUARD_LOCK_TTL_MS,
  LOCKED_REASON,
  ERROR_REASON,
  LOCK_EXPIRED_REASON,
} from './defaults.js';
export { instanceLabelValue } from './instance-label.js';
