import type { JSONSchemaProps } from './json-schema-props.js';

export function applySchemaDefaults(_value: unknown, _schema: JSONSchemaProps): void {
  throw new Error('not implemented');
}
