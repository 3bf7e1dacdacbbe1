import { linearRegexError } from './linear-regex.js';
import type { FieldCause } from '../field-cause.js';
import { isJsonObject } from '../patch/json-value.js';
import { fieldError } from '../validation/field-errors.js';
import { keywordHasValidType, SCHEMA_KEYWORD_TYPES } from './sanitize-schema.js';

const TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean'];

/**
 * Checks the structural-schema rules kube-apiserver enforces on a CRD's openAPIV3Schema (subset): root
 * `type: object`; every node typed unless int-or-string or preserve-unknown-fields; known types; arrays
 * have `items`; properties and additionalProperties not both set; list-map keys only on map lists.
 */
export function validateStructuralSchema(schema: Record<string, unknown>, path: string): FieldCause[] {
  const causes: FieldCause[] = [];
  if (schema.type !== 'object') {
    causes.push(
      schema.type === undefined
        ? fieldError.required(`${path}.type`, 'must not be empty at the root')
        : fieldError.invalid(`${path}.type`, schema.type, 'must be object at the root'),
    );
  }
  checkNode(schema, path, causes);
  return causes;
}

function checkNode(node: Record<string, unknown>, path: string, causes: FieldCause[]): void {
  for (const [keyword, value] of Object.entries(node)) {
    if (!keywordHasValidType(keyword, value)) {
      causes.push(
        fieldError.typeInvalid(
          `${path}.${keyword}`,
          value,
          `must be of type ${SCHEMA_KEYWORD_TYPES[keyword] ?? 'any'}`,
        ),
      );
    }
  }
  const patternError = typeof node.pattern === 'string' ? linearRegexError(node.pattern) : undefined;
  if (patternError !== undefined) {
    causes.push(
      fieldError.invalid(
        `${path}.pattern`,
        node.pattern,
        `must be a valid regular expression, but isn't: ${patternError}`,
      ),
    );
  }
  const untypedAllowed =
    node['x-kubernetes-int-or-string'] === true || node['x-kubernetes-preserve-unknown-fields'] === true;
  if (node.type === undefined) {
    if (!untypedAllowed)
      causes.push(fieldError.required(`${path}.type`, 'must not be empty for specified object fields'));
  } else if (typeof node.type !== 'string' || !TYPES.includes(node.type)) {
    causes.push(fieldError.notSupported(`${path}.type`, node.type, TYPES));
  }
  if (node.type === 'array' && !isJsonObject(node.items)) {
    causes.push(fieldError.required(`${path}.items`, 'must be specified'));
  }
  if (isJsonObject(node.properties) && isJsonObject(node.additionalProperties)) {
    causes.push(
      fieldError.forbidden(
        `${path}.additionalProperties`,
        'additionalProperties and properties are mutual exclusive',
      ),
    );
  }
  if (node['x-kubernetes-list-map-keys'] !== undefined && node['x-kubernetes-list-type'] !== 'map') {
    causes.push(
      fieldError.forbidden(
        `${path}.x-kubernetes-list-map-keys`,
        'must only be set if x-kubernetes-list-type is map',
      ),
    );
  }
  if (isJsonObject(node.properties)) {
    for (const [key, child] of Object.entries(node.properties)) {
      if (isJsonObject(child)) checkNode(child, `${path}.properties[${key}]`, causes);
    }
  }
  if (isJsonObject(node.items)) checkNode(node.items, `${path}.items`, causes);
  if (isJsonObject(node.additionalProperties))
    checkNode(node.additionalProperties, `${path}.additionalProperties`, causes);
}
