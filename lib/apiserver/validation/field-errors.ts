import type { FieldCause } from '../field-cause.js';

/** Kube's rendering of a value inside an error message (strings quoted, others as JSON). */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'null';
  return JSON.stringify(value);
}

/** Constructors for FieldCause entries with kube's cause reasons and message bodies. */
export const fieldError = {
  invalid: (field: string, value: unknown, detail: string): FieldCause => ({
    reason: 'FieldValueInvalid',
    message: `Invalid value: ${formatValue(value)}: ${detail}`,
    field,
  }),
  typeInvalid: (field: string, value: unknown, detail: string): FieldCause => ({
    reason: 'FieldValueTypeInvalid',
    message: `Invalid value: ${formatValue(value)}: ${detail}`,
    field,
  }),
  required: (field: string, detail = ''): FieldCause => ({
    reason: 'FieldValueRequired',
    message: detail ? `Required value: ${detail}` : 'Required value',
    field,
  }),
  notSupported: (field: string, value: unknown, supported: readonly unknown[]): FieldCause => ({
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${formatValue(value)}: supported values: ${supported.map(formatValue).join(', ')}`,
    field,
  }),
  forbidden: (field: string, detail: string): FieldCause => ({
    reason: 'FieldValueForbidden',
    message: `Forbidden: ${detail}`,
    field,
  }),
  tooLong: (field: string, max: number): FieldCause => ({
    reason: 'FieldValueTooLong',
    message: `Too long: may not be more than ${max} bytes`,
    field,
  }),
  tooMany: (field: string, actual: number, max: number): FieldCause => ({
    reason: 'FieldValueTooMany',
    message: `Too many: ${actual}: must have at most ${max} items`,
    field,
  }),
  duplicate: (field: string, value: unknown): FieldCause => ({
    reason: 'FieldValueDuplicate',
    message: `Duplicate value: ${formatValue(value)}`,
    field,
  }),
};
