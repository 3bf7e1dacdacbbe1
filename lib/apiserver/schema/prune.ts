import type { JSONSchemaProps } from './json-schema-props.js';

export function pruneUnknownFields(_value: unknown, _schema: JSONSchemaProps): string[] {
  throw new Error('not implemented');
}
