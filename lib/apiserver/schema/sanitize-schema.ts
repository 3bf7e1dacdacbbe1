import { linearRegexError } from './linear-regex.js';
import { isJsonObject } from '../patch/json-value.js';
import type { JSONSchemaProps } from './json-schema-props.js';

type KeywordType =
  | 'string'
  | 'number'
  | 'boolean'
  | 'string[]'
  | 'array'
  | 'schema'
  | 'schema-map'
  | 'schema[]'
  | 'schema|boolean'
  | 'any';

/** The JSON type every supported schema keyword must have (kube decodes JSONSchemaProps strictly). */
export const SCHEMA_KEYWORD_TYPES: Readonly<Record<string, KeywordType>> = {
  type: 'string',
  description: 'string',
  properties: 'schema-map',
  items: 'schema',
  required: 'string[]',
  enum: 'array',
  minimum: 'number',
  maximum: 'number',
  exclusiveMinimum: 'boolean',
  exclusiveMaximum: 'boolean',
  multipleOf: 'number',
  minLength: 'number',
  maxLength: 'number',
  pattern: 'string',
  minItems: 'number',
  maxItems: 'number',
  uniqueItems: 'boolean',
  minProperties: 'number',
  maxProperties: 'number',
  format: 'string',
  nullable: 'boolean',
  default: 'any',
  additionalProperties: 'schema|boolean',
  oneOf: 'schema[]',
  anyOf: 'schema[]',
  allOf: 'schema[]',
  not: 'schema',
  'x-kubernetes-preserve-unknown-fields': 'boolean',
  'x-kubernetes-int-or-string': 'boolean',
  'x-kubernetes-embedded-resource': 'boolean',
  'x-kubernetes-list-type': 'string',
  'x-kubernetes-list-map-keys': 'string[]',
  'x-kubernetes-map-type': 'string',
  'x-kubernetes-validations': 'array',
};

/** Whether a keyword's value has the type the schema language requires (nested schemas: objects). */
export function keywordHasValidType(keyword: string, value: unknown): boolean {
  const type = Object.hasOwn(SCHEMA_KEYWORD_TYPES, keyword) ? SCHEMA_KEYWORD_TYPES[keyword] : 'any';
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    case 'array':
      return Array.isArray(value);
    case 'schema':
      return isJsonObject(value);
    case 'schema-map':
      return isJsonObject(value) && Object.values(value).every(isJsonObject);
    case 'schema[]':
      return Array.isArray(value) && value.every(isJsonObject);
    case 'schema|boolean':
      return typeof value === 'boolean' || isJsonObject(value);
    default:
      return true;
  }
}

/** Whether a schema `pattern` compiles with RE2 semantics (as Go's `regexp`, which kube uses). */
export function isValidPattern(pattern: string): boolean {
  return linearRegexError(pattern) === undefined;
}

const cache = new WeakMap<object, JSONSchemaProps>();

/**
 * A copy of a schema with every keyword of the wrong type (or an uncompilable pattern) dropped,
 * recursively, so the algorithms never trip over a malformed stored CRD. Cached per schema object.
 */
export function sanitizeSchema(schema: unknown): JSONSchemaProps {
  if (!isJsonObject(schema)) return {};
  const cached = cache.get(schema);
  if (cached) return cached;
  const clean: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (!keywordHasValidType(keyword, value)) continue;
    if (keyword === 'pattern' && !isValidPattern(value as string)) continue;
    const type = SCHEMA_KEYWORD_TYPES[keyword];
    if (type === 'schema' || (type === 'schema|boolean' && isJsonObject(value)))
      clean[keyword] = sanitizeSchema(value);
    else if (type === 'schema[]') clean[keyword] = (value as unknown[]).map(sanitizeSchema);
    else if (type === 'schema-map') {
      const properties: Record<string, JSONSchemaProps> = {};
      for (const [name, child] of Object.entries(value as Record<string, unknown>)) {
        Object.defineProperty(properties, name, {
          value: sanitizeSchema(child),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      clean[keyword] = properties;
    } else clean[keyword] = value;
  }
  cache.set(schema, clean);
  cache.set(clean, clean);
  return clean;
}
