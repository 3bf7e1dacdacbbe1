import type { FieldCause } from '../field-cause.js';
import type { JSONSchemaProps } from './json-schema-props.js';

export function validateAgainstSchema(
  _value: unknown,
  _schema: JSONSchemaProps,
  _path?: string,
): FieldCause[] {
  throw new Error('not implemented');
}
