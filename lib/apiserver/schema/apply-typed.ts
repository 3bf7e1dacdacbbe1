import { goSharp, goTypeOfValue, goValue } from '../builtin/go-decode.js';
import { isJsonObject } from '../json.js';
import type { JSONSchemaProps } from './json-schema-props.js';
import { propertySchema } from './property-schema.js';

/** Root members every custom resource has besides its schema's (typed by ObjectMeta, not checked here). */
const ROOT_MEMBERS = new Set(['apiVersion', 'kind', 'metadata']);

/** Stops the walk: structured-merge-diff returns at the first field its schema does not declare. */
class Undeclared extends Error {}

/**
 * What structured-merge-diff says when server-side apply turns an applied custom resource into its typed
 * form (`failed to create typed patch object …`), or undefined when it fits: a value of the wrong type, a
 * field the structural schema does not declare, a list-map item without its keys or two items with the same
 * keys, a set with a repeated value. kube-apiserver answers these with a 500, before any validation.
 * One problem is `<path>: <text>`; several are `errors:` followed by one indented line each, in document
 * order (kube walks maps in Go's random order, so its order of several problems varies from call to call).
 */
export function customResourceApplyError(
  obj: Record<string, unknown>,
  schema: JSONSchemaProps,
): string | undefined {
  const errors: string[] = [];
  try {
    for (const [key, value] of Object.entries(obj)) {
      if (ROOT_MEMBERS.has(key)) continue;
      const child = propertySchema(schema, key);
      if (child === undefined) {
        if (schema['x-kubernetes-preserve-unknown-fields'] === true) continue;
        errors.push(`.${key}: field not declared in schema`);
        throw new Undeclared();
      }
      walk(value, child, `.${key}`, errors, 0);
    }
  } catch (e) {
    if (!(e instanceof Undeclared)) throw e;
  }
  if (errors.length === 0) return undefined;
  return errors.length === 1 ? errors[0] : `errors:\n  ${errors.join('\n  ')}`;
}

function walk(value: unknown, schema: JSONSchemaProps, path: string, errors: string[], depth: number): void {
  if (value === null || value === undefined || depth > 64) return;
  if (schema['x-kubernetes-int-or-string'] === true) return;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.type === undefined) return;
  switch (schema.type) {
    case 'object': {
      if (!isJsonObject(value)) {
        errors.push(`${path}: expected map, got &{${goValue(value)}}`);
        return;
      }
      const additional =
        typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
      for (const [key, item] of Object.entries(value)) {
        const child = propertySchema(schema, key) ?? additional;
        if (child === undefined) {
          if (schema['x-kubernetes-preserve-unknown-fields'] === true || schema.properties === undefined)
            continue;
          errors.push(`${path}.${key}: field not declared in schema`);
          throw new Undeclared();
        }
        walk(item, child, `${path}.${key}`, errors, depth + 1);
      }
      return;
    }
    case 'array':
      if (!Array.isArray(value)) {
        errors.push(`${path}: expected list, got &{${goValue(value)}}`);
        return;
      }
      walkList(value, schema, path, errors, depth);
      return;
    case 'integer':
    case 'number':
      if (typeof value !== 'number')
        errors.push(`${path}: expected numeric (int or float), got ${goTypeOfValue(value)}`);
      return;
    case 'string':
      if (typeof value !== 'string') {
        errors.push(`${path}: expected string, got &value.valueUnstructured{Value:${goSharp(value)}}`);
      }
      return;
    case 'boolean':
      if (typeof value !== 'boolean') errors.push(`${path}: expected boolean, got &{${goValue(value)}}`);
      return;
    default:
      return;
  }
}

/** List items: keyed (list-map), by value (set) or by position (atomic); keys must be there and unique. */
function walkList(
  list: unknown[],
  schema: JSONSchemaProps,
  path: string,
  errors: string[],
  depth: number,
): void {
  const items = schema.items ?? {};
  const listType = schema['x-kubernetes-list-type'];
  const keys = listType === 'map' ? [...(schema['x-kubernetes-list-map-keys'] ?? [])].sort() : [];
  const seen = new Set<string>();
  list.forEach((item, i) => {
    let element = `[${String(i)}]`;
    if (listType === 'map') {
      const present = isJsonObject(item)
        ? keys.filter((k) => item[k] !== undefined || propertySchema(items, k)?.default !== undefined)
        : [];
      if (present.length === 0) {
        errors.push(
          `${path}: element ${String(i)}: associative list with keys has an element that omits all key fields ${JSON.stringify(keys)} (and doesn't have default values for any key fields)`,
        );
        return;
      }
      const record = isJsonObject(item) ? item : {};
      element = `[${present.map((k) => `${k}=${JSON.stringify(record[k] ?? propertySchema(items, k)?.default)}`).join(',')}]`;
    } else if (listType === 'set') {
      element = `[=${JSON.stringify(item)}]`;
    }
    if (listType === 'map' || listType === 'set') {
      if (seen.has(element)) errors.push(`${path}: duplicate entries for key ${element}`);
      seen.add(element);
    }
    walk(item, items, `${path}${element}`, errors, depth + 1);
  });
}
