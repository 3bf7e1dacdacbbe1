/**
 * One entry of `Status.details.causes` as kube-apiserver reports it for 422 Invalid and 409 apply conflicts.
 * `reason` is kube's cause type, e.g. 'FieldValueInvalid', 'FieldValueRequired', 'FieldValueNotSupported',
 * 'FieldValueTooLong', 'FieldValueForbidden', 'FieldValueTypeInvalid', 'FieldValueDuplicate',
 * 'FieldManagerConflict'. `message` is the text after the field (kube's "error body"), `field` the path.
 */
export interface FieldCause {
  reason: string;
  message: string;
  field: string;
}

/**
 * The top-level message of a 422 Invalid Status, as kube builds it:
 * `Widget.example.com "x" is invalid: spec.size: Invalid value: …` for one cause and
 * `… is invalid: [spec.a: Required value, spec.b: …]` for several. `qualifiedKind` is `<Kind>.<group>`
 * (just `<Kind>` for the core group).
 */
export function formatInvalidMessage(
  qualifiedKind: string,
  name: string,
  causes: readonly FieldCause[],
): string {
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const detail = parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
  return `${qualifiedKind} ${JSON.stringify(name)} is invalid: ${detail}`;
}
