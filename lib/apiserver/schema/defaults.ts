import { cloneJson, isJsonObject } from '../patch/json-value.js';
import type { JSONSchemaProps } from './json-schema-props.js';
import { propertySchema } from './property-schema.js';
import { sanitizeSchema } from './sanitize-schema.js';

/**
 * Applies the schema's `default`s in place, as kube-apiserver does after pruning on create/update and
 * when reading stored objects: a property that is missing (or null while not nullable) in an object
 * that exists gets a copy of its default, then defaulting continues inside it. Array items and
 * additionalProperties values are defaulted through their schemas. The root's metadata is not touched.
 */
export function applySchemaDefaults(value: unknown, schema: JSONSchemaProps): void {
  defaultNode(value, sanitizeSchema(schema), true);
}

function defaultNode(value: unknown, schema: JSONSchemaProps, root: boolean): void {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items) for (const item of value) defaultNode(item, items, false);
    return;
  }
  if (!isJsonObject(value)) return;
  for (const [key, propSchema] of Object.entries(schema.properties ?? {})) {
    if (root && key === 'metadata') continue;
    const current = value[key];
    const absent = current === undefined || (current === null && !propSchema.nullable);
    if (absent && propSchema.default !== undefined) value[key] = cloneJson(propSchema.default);
    defaultNode(value[key], propSchema, propSchema['x-kubernetes-embedded-resource'] === true);
  }
  const additional = schema.additionalProperties;
  if (isJsonObject(additional)) {
    for (const [key, item] of Object.entries(value)) {
      if (propertySchema(schema, key) === undefined) defaultNode(item, additional, false);
    }
  }
}
