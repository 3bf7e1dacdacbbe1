import type { FieldCause } from '../field-cause.js';

export function validateCustomResourceDefinition(_crd: Record<string, unknown>): FieldCause[] {
  throw new Error('not implemented');
}
