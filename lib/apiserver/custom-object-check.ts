import { schemaHasRules, validateCelRules } from './cel/validate-rules.js';
import type { FieldCause } from './field-cause.js';
import { cloneJson, isJsonObject, type JsonObject } from './patch/json-value.js';
import {
  defaultCustomResourceDefinitionNames,
  validateCustomResourceDefinition,
} from './schema/crd-validation.js';
import { applySchemaDefaults } from './schema/defaults.js';
import type { JSONSchemaProps } from './schema/json-schema-props.js';
import { pruneNonNullableNulls, pruneUnknownFields } from './schema/prune.js';
import { validateAgainstSchema } from './schema/validate.js';
import { fieldError } from './validation/field-errors.js';

/**
 * What {@link admitCustomObject} found: the object as the server would store it (pruned, defaulted), the
 * fields it dropped, and one cause per problem (kube's field paths and texts; empty when valid).
 * @category Embedded API server
 */
export interface CustomObjectAdmission {
  object: JsonObject;
  prunedFields: string[];
  causes: FieldCause[];
}

/**
 * Checks a CustomResourceDefinition as kube-apiserver does on create (names, versions, structural schemas,
 * CEL rules compiled, printer columns, scale paths), with kube's field paths; empty when it would be accepted.
 * @category Embedded API server
 */
export function checkCustomResourceDefinition(crd: JsonObject): FieldCause[] {
  return validateCustomResourceDefinition(defaultCustomResourceDefinitionNames(crd));
}

/**
 * Checks every `default` in a structural schema against the schema node it sits on (kube refuses a CRD whose
 * default does not validate). `path` is the schema's field path, used in the causes.
 * @category Embedded API server
 */
export function checkSchemaDefaults(schema: JSONSchemaProps, path: string): FieldCause[] {
  const causes: FieldCause[] = [];
  const visit = (node: JSONSchemaProps, at: string): void => {
    if (node.default !== undefined) {
      const value = cloneJson(node.default);
      if (isJsonObject(value)) applySchemaDefaults(value, node);
      for (const cause of validateAgainstSchema(value, node, `${at}.default`)) causes.push(cause);
    }
    for (const [key, child] of Object.entries(node.properties ?? {}))
      visit(child, `${at}.properties[${key}]`);
    if (node.items !== undefined) visit(node.items, `${at}.items`);
    if (isJsonObject(node.additionalProperties)) {
      visit(node.additionalProperties, `${at}.additionalProperties`);
    }
  };
  visit(schema, path);
  return causes;
}

/**
 * What the server does with a custom object of a version whose `openAPIV3Schema` is `schema`, without a
 * server: prunes unknown fields (metadata beyond ObjectMeta too), drops nulls the schema does not allow,
 * applies defaults, validates against the schema and evaluates the CEL rules (`old` for transition rules
 * and ratcheting on update). `obj` is not changed.
 * @category Embedded API server
 */
export function admitCustomObject(
  obj: JsonObject,
  schema: JSONSchemaProps,
  old?: JsonObject,
): CustomObjectAdmission {
  const { apiVersion, kind, metadata, ...rest } = cloneJson(obj);
  const body: JsonObject = rest;
  const bodySchema = withoutMeta(schema);
  const prunedFields = pruneUnknownFields(body, bodySchema).map((p) => p.replace(/^\./, ''));
  pruneNonNullableNulls(body, bodySchema);
  applySchemaDefaults(body, bodySchema);
  const causes = validateAgainstSchema(body, bodySchema);
  const object: JsonObject = { apiVersion, kind, metadata: isJsonObject(metadata) ? metadata : {}, ...body };
  if (schemaHasRules(schema)) {
    if (causes.some((c) => c.reason === 'FieldValueTypeInvalid' || c.reason === 'FieldValueNotSupported')) {
      causes.push(
        fieldError.invalid(
          '',
          undefined,
          'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
        ),
      );
    } else causes.push(...validateCelRules(object, old, schema));
  }
  return { object, prunedFields, causes };
}

function withoutMeta(schema: JSONSchemaProps): JSONSchemaProps {
  const properties = { ...(schema.properties ?? {}) };
  delete properties.apiVersion;
  delete properties.kind;
  delete properties.metadata;
  const required = (schema.required ?? []).filter(
    (r) => r !== 'apiVersion' && r !== 'kind' && r !== 'metadata',
  );
  return { ...schema, properties, required };
}
