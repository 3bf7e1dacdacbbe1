import { compileLinearRegex, isInvalidRegexError } from './linear-regex.js';
import type { FieldCause } from '../field-cause.js';
import { isJsonObject, jsonEqual, jsonTypeName } from '../patch/json-value.js';
import { fieldError } from '../validation/field-errors.js';
import type { JSONSchemaProps } from './json-schema-props.js';
import { propertySchema } from './property-schema.js';
import { sanitizeSchema } from './sanitize-schema.js';
import { checkFormat } from './formats.js';

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Whether `value` has the schema type (integer-valued numbers count as integers, as in JSON). */
function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isJsonObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

/**
 * Validates a value against a CRD structural schema, as kube-apiserver's OpenAPI validator does, and
 * returns one cause per failing field with kube's texts, e.g. field `spec.replicas`, message
 * `Invalid value: "string": spec.replicas in body must be of type integer: "string"`. `path` is the
 * field path of `value` ('' for an object root). At the root, `metadata` is only checked for name and
 * generateName constraints (the rest is ObjectMeta, validated by validateObjectMeta). CEL rules
 * (x-kubernetes-validations) are not evaluated.
 */
export function validateAgainstSchema(
  value: unknown,
  schema: JSONSchemaProps,
  path = '',
  relativeTo?: string,
): FieldCause[] {
  const causes: FieldCause[] = [];
  validateNode(value, sanitizeSchema(schema), path, causes, path === '');
  if (relativeTo === undefined) return causes;
  // A subtree validated on its own (a status write: kube's validator is rooted at `status`) names fields
  // in its texts relative to that root, while the causes keep the full field path.
  return causes.map((c) => {
    const relative =
      c.field === relativeTo
        ? '<root>'
        : c.field.startsWith(`${relativeTo}.`)
          ? c.field.slice(relativeTo.length + 1)
          : c.field;
    return { ...c, message: c.message.replace(`${c.field} in body`, `${relative} in body`) };
  });
}

function validateNode(
  value: unknown,
  schema: JSONSchemaProps,
  path: string,
  causes: FieldCause[],
  root: boolean,
): void {
  const label = path === '' ? '<root>' : path;
  if (value === null) {
    if (!schema.nullable && schema.type !== undefined && !schema['x-kubernetes-preserve-unknown-fields']) {
      causes.push(
        fieldError.typeInvalid(path, 'null', `${label} in body must be of type ${schema.type}: "null"`),
      );
    }
    return;
  }
  if (schema['x-kubernetes-int-or-string']) {
    if (!hasType(value, 'integer') && !hasType(value, 'string')) {
      const actual = jsonTypeName(value);
      causes.push(
        fieldError.typeInvalid(path, actual, `${label} in body must be of type integer,string: "${actual}"`),
      );
      return;
    }
  } else if (schema.type !== undefined && !hasType(value, schema.type)) {
    const actual = jsonTypeName(value);
    causes.push(
      fieldError.typeInvalid(path, actual, `${label} in body must be of type ${schema.type}: "${actual}"`),
    );
    return;
  }
  const before = causes.length;
  validateScalar(value, schema, path, label, causes);
  if (Array.isArray(value)) validateArray(value, schema, path, label, causes);
  if (isJsonObject(value)) validateObject(value, schema, path, label, causes, root);
  if (causes.length === before) validateCombinators(value, schema, path, label, causes);
}

function validateScalar(
  value: unknown,
  schema: JSONSchemaProps,
  path: string,
  label: string,
  causes: FieldCause[],
): void {
  if (schema.enum !== undefined && !schema.enum.some((allowed) => jsonEqual(allowed, value))) {
    causes.push(fieldError.notSupported(path, value, schema.enum));
  }
  if (typeof value === 'number') {
    const { minimum, maximum, multipleOf } = schema;
    if (minimum !== undefined && (schema.exclusiveMinimum ? value <= minimum : value < minimum)) {
      const relation = schema.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      causes.push(fieldError.invalid(path, value, `${label} in body should be ${relation} ${minimum}`));
    }
    if (maximum !== undefined && (schema.exclusiveMaximum ? value >= maximum : value > maximum)) {
      const relation = schema.exclusiveMaximum ? 'less than' : 'less than or equal to';
      causes.push(fieldError.invalid(path, value, `${label} in body should be ${relation} ${maximum}`));
    }
    if (multipleOf !== undefined && multipleOf > 0 && !Number.isInteger(value / multipleOf)) {
      causes.push(fieldError.invalid(path, value, `${label} in body should be a multiple of ${multipleOf}`));
    }
  }
  if (typeof value === 'string') {
    const length = Array.from(value).length; // code points, like Go's rune count
    if (schema.maxLength !== undefined && length > schema.maxLength) {
      causes.push(fieldError.tooLong(path, schema.maxLength));
    }
    if (schema.minLength !== undefined && length < schema.minLength) {
      causes.push(
        fieldError.invalid(path, value, `${label} in body should be at least ${schema.minLength} chars long`),
      );
    }
    if (schema.pattern !== undefined && !patternMatches(schema.pattern, value)) {
      causes.push(fieldError.invalid(path, value, `${label} in body should match '${schema.pattern}'`));
    }
    if (schema.format !== undefined && !checkFormat(schema.format, value)) {
      causes.push(
        fieldError.invalid(
          path,
          value,
          `${label} in body must be of type ${schema.format}: ${JSON.stringify(value)}`,
        ),
      );
    }
  }
}

/** RE2 semantics in linear time; a stored pattern RE2 rejects (sanitizeSchema drops those) matches nothing. */
function patternMatches(pattern: string, value: string): boolean {
  try {
    return compileLinearRegex(pattern).test(value);
  } catch (err) {
    if (isInvalidRegexError(err)) return false;
    throw err;
  }
}

function validateArray(
  value: unknown[],
  schema: JSONSchemaProps,
  path: string,
  label: string,
  causes: FieldCause[],
): void {
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    causes.push(fieldError.tooMany(path, value.length, schema.maxItems));
  }
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    causes.push(
      fieldError.invalid(path, value, `${label} in body should have at least ${schema.minItems} items`),
    );
  }
  const listType = schema['x-kubernetes-list-type'];
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  const seen: unknown[] = [];
  value.forEach((item, i) => {
    const itemPath = `${path}[${i}]`;
    if (schema.items) validateNode(item, schema.items, itemPath, causes, false);
    if (listType === 'set' || schema.uniqueItems) {
      if (seen.some((other) => jsonEqual(other, item))) causes.push(fieldError.duplicate(itemPath, item));
      seen.push(item);
    } else if (listType === 'map' && isJsonObject(item)) {
      const identity = Object.fromEntries(keys.map((k) => [k, item[k]]));
      if (seen.some((other) => jsonEqual(other, identity)))
        causes.push(fieldError.duplicate(itemPath, identity));
      seen.push(identity);
    }
  });
}

function validateObject(
  value: Record<string, unknown>,
  schema: JSONSchemaProps,
  path: string,
  label: string,
  causes: FieldCause[],
  root: boolean,
): void {
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(value, name) || value[name] === undefined)
      causes.push(fieldError.required(child(path, name)));
  }
  const count = Object.keys(value).length;
  if (schema.maxProperties !== undefined && count > schema.maxProperties) {
    causes.push(fieldError.tooMany(path, count, schema.maxProperties));
  }
  if (schema.minProperties !== undefined && count < schema.minProperties) {
    causes.push(
      fieldError.invalid(
        path,
        count,
        `${label} in body should have at least ${schema.minProperties} properties`,
      ),
    );
  }
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  if (embedded) {
    for (const key of ['apiVersion', 'kind']) {
      if (typeof value[key] !== 'string' || value[key] === '')
        causes.push(fieldError.required(child(path, key), 'must not be empty'));
    }
  }
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    let propSchema = propertySchema(schema, key);
    if (propSchema === undefined && isJsonObject(schema.additionalProperties))
      propSchema = schema.additionalProperties;
    if (propSchema === undefined) continue;
    if ((root || embedded) && key === 'metadata') {
      validateMetadataNames(item, propSchema, child(path, key), causes);
      continue;
    }
    validateNode(item, propSchema, child(path, key), causes, false);
  }
}

/** In CR metadata only name and generateName may be constrained by the schema. */
function validateMetadataNames(
  metadata: unknown,
  schema: JSONSchemaProps,
  path: string,
  causes: FieldCause[],
): void {
  if (!isJsonObject(metadata)) return;
  for (const key of ['name', 'generateName']) {
    const propSchema = propertySchema(schema, key);
    if (propSchema !== undefined && metadata[key] !== undefined) {
      validateNode(metadata[key], propSchema, child(path, key), causes, false);
    }
  }
}

function passes(value: unknown, schema: JSONSchemaProps, path: string): boolean {
  return validateAgainstSchema(value, schema, path).length === 0;
}

function validateCombinators(
  value: unknown,
  schema: JSONSchemaProps,
  path: string,
  label: string,
  causes: FieldCause[],
): void {
  for (const sub of schema.allOf ?? []) causes.push(...validateAgainstSchema(value, sub, path));
  if (schema.anyOf && !schema.anyOf.some((sub) => passes(value, sub, path))) {
    causes.push(
      fieldError.invalid(path, value, `${label} in body must validate at least one schema (anyOf)`),
    );
  }
  if (schema.oneOf && schema.oneOf.filter((sub) => passes(value, sub, path)).length !== 1) {
    causes.push(
      fieldError.invalid(path, value, `${label} in body must validate one and only one schema (oneOf)`),
    );
  }
  if (schema.not && passes(value, schema.not, path)) {
    causes.push(fieldError.invalid(path, value, `${label} in body must not validate the schema (not)`));
  }
}
