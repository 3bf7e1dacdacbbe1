/**
 * Status helpers for any front end: conditions, condition names, the status writer and controller references.
 *
 * @module reconcilekit/status
 */
export {
  setCondition,
  getCondition,
  isConditionTrue,
  removeCondition,
  upsertCondition,
  findConditionByStatus,
  isConditionPresentAndEqual,
  isAnyConditionWithStatus,
  areAllConditionsWithStatus,
  type StatusCondition,
  type StatusConditionInput,
} from './status-conditions.js';
export {
  validateConditionType,
  isValidConditionReason,
  boundConditionReason,
  boundConditionMessage,
  MAX_CONDITION_TYPE_LENGTH,
  MAX_CONDITION_REASON_LENGTH,
  MAX_CONDITION_MESSAGE_LENGTH,
} from './condition-names.js';
export { StatusWriter, type StatusWriterOptions } from './status-writer.js';
export { setControllerReference } from './controller-reference.js';
