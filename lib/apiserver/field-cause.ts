/**
 * One entry of `Status.details.causes` as kube-apiserver reports it for 422 Invalid and 409 apply conflicts.
 * `reason` is kube's cause type, e.g. 'FieldValueInvalid', 'FieldValueRequired', 'FieldValueNotSupported',
 * 'FieldValueTooLong', 'FieldValueForbidden', 'FieldValueTypeInvalid', 'FieldValueDuplicate',
 * 'FieldManagerConflict'.
 */
export interface FieldCause {
  reason: string;
  message: string;
  field: string;
}
