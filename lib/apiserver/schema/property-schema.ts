import type { JSONSchemaProps } from './json-schema-props.js';

/**
 * The schema of property `key`, looked up as an own property only: a body field named `constructor` or
 * `toString` must not find Object.prototype members and escape pruning or validation.
 */
export function propertySchema(schema: JSONSchemaProps, key: string): JSONSchemaProps | undefined {
  const properties = schema.properties;
  return properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : undefined;
}
