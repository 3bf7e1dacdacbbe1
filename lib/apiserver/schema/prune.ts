import { deleteKey, isJsonObject } from '../patch/json-value.js';
import type { JSONSchemaProps } from './json-schema-props.js';
import { propertySchema } from './property-schema.js';
import { sanitizeSchema } from './sanitize-schema.js';

/** The ObjectMeta fields kept in the `metadata` of a custom resource or embedded resource. */
export const OBJECT_META_FIELDS: readonly string[] = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

const TYPE_META_FIELDS = ['apiVersion', 'kind'];

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Drops the fields a CRD structural schema does not describe, in place (the caller passes its own copy),
 * and returns their paths (e.g. `spec.colour`, `spec.items[0].extra`) for fieldValidation Warn/Strict
 * (`unknown field "spec.colour"`). Subtrees under x-kubernetes-preserve-unknown-fields keep unknown keys
 * (known properties inside are still pruned); the root and embedded resources keep apiVersion, kind and
 * metadata, and metadata is pruned to ObjectMeta fields.
 */
export function pruneUnknownFields(value: unknown, schema: JSONSchemaProps): string[] {
  const pruned: string[] = [];
  pruneNode(value, sanitizeSchema(schema), '', true, pruned);
  return pruned;
}

/**
 * pruneUnknownFields for a schema the server generated itself (the built-in kinds'): not sanitised, so a
 * schema graph with cycles (CRDs' JSONSchemaProps) is walked only as deep as the value goes.
 */
export function pruneWithTrustedSchema(value: unknown, schema: JSONSchemaProps): string[] {
  const pruned: string[] = [];
  pruneNode(value, schema, '', true, pruned);
  return pruned;
}

function pruneNode(
  value: unknown,
  schema: JSONSchemaProps,
  path: string,
  resource: boolean,
  pruned: string[],
): void {
  if (Array.isArray(value)) {
    if (schema.items) {
      const items = schema.items;
      value.forEach((item, i) => {
        pruneNode(item, items, `${path}[${i}]`, items['x-kubernetes-embedded-resource'] === true, pruned);
      });
    }
    return;
  }
  if (!isJsonObject(value)) return;
  const preserve =
    schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
  const additional = isJsonObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  for (const key of Object.keys(value)) {
    const path2 = child(path, key);
    if (resource && TYPE_META_FIELDS.includes(key)) continue;
    if (resource && key === 'metadata') {
      pruneMetadata(value[key], path2, pruned);
      continue;
    }
    const propSchema = propertySchema(schema, key) ?? additional;
    if (propSchema === undefined) {
      if (!preserve) {
        pruned.push(path2);
        deleteKey(value, key);
      }
      continue;
    }
    pruneNode(value[key], propSchema, path2, propSchema['x-kubernetes-embedded-resource'] === true, pruned);
  }
}

function pruneMetadata(metadata: unknown, path: string, pruned: string[]): void {
  if (!isJsonObject(metadata)) return;
  for (const key of Object.keys(metadata)) {
    if (!OBJECT_META_FIELDS.includes(key)) {
      pruned.push(child(path, key));
      deleteKey(metadata, key);
    }
  }
}

/**
 * Drops, in place, every object property whose value is `null` while its schema is not `nullable` and has
 * no `default` (a defaulted one gets its default later), as apiextensions-apiserver's decoder does before
 * defaulting and validation (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting/prunenulls.go,
 * PruneNonNullableNullsWithoutDefaults). Array items are walked but a `null` item stays (validation
 * rejects it); a property the schema does not describe is left alone.
 */
export function pruneNonNullableNulls(value: unknown, schema: JSONSchemaProps): void {
  pruneNullsNode(value, sanitizeSchema(schema));
}

function pruneNullsNode(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (Array.isArray(value)) {
    for (const item of value) pruneNullsNode(item, schema?.items);
    return;
  }
  if (!isJsonObject(value)) return;
  const additional = isJsonObject(schema?.additionalProperties) ? schema.additionalProperties : undefined;
  for (const key of Object.keys(value)) {
    const propSchema = schema === undefined ? undefined : (propertySchema(schema, key) ?? additional);
    const item = value[key];
    const droppable =
      propSchema !== undefined && propSchema.nullable !== true && propSchema.default === undefined;
    if (item === null && droppable) {
      deleteKey(value, key);
    } else {
      pruneNullsNode(item, propSchema);
    }
  }
}
