import {
  applySchemaDefaults,
  pruneUnknownFields,
  validateAgainstSchema,
  validateObjectMeta,
} from '../algorithms.js';
import type { FieldCause } from '../field-cause.js';
import { display, isJsonObject, metadataOf, stringAt, stringsAt, type JsonObject } from '../json.js';
import type { JSONSchemaProps } from '../schema/json-schema-props.js';
import {
  OBJECT_META_FIELDS as OBJECT_META_FIELD_NAMES,
  pruneNonNullableNulls,
  pruneWithTrustedSchema,
} from '../schema/prune.js';
import { builtInSchema } from '../builtin/builtin-schemas.js';
import { convertPodStatusIps } from '../builtin/built-in-rules.js';
import {
  applyConfigTypeError,
  builtInDefinitionName,
  canonicalizeQuantities,
  dropEmptyOmitted,
  goFormat,
  jsonDecodeError,
  unstructuredConvertError,
} from '../builtin/go-decode.js';
import { apiVersionOf } from '../resource-type.js';
import { ApiError, badRequest, failureStatus, invalid } from '../status.js';
import { schemaHasRules, validateCelRules } from '../cel/validate-rules.js';
import { fieldError } from '../validation/field-errors.js';
import type { RequestContext } from './request-context.js';
import { typeMetaMismatch } from './decode-errors.js';

const OBJECT_META_FIELDS = new Set(OBJECT_META_FIELD_NAMES);

/** Checks apiVersion/kind against the endpoint (400 on mismatch) and fills them when absent. */
export function checkTypeMeta(ctx: RequestContext, obj: JsonObject): void {
  const expected = apiVersionOf(ctx.type.group, ctx.version.name);
  const mismatch = typeMetaMismatch(ctx, obj);
  if (mismatch !== undefined) throw mismatch;
  obj.apiVersion = expected;
  obj.kind = ctx.type.kind;
  if (obj.metadata === undefined) obj.metadata = {};
  if (!isJsonObject(obj.metadata)) throw badRequest('metadata must be an object');
}

function definitionOf(ctx: RequestContext): string | undefined {
  if (!ctx.type.builtin) return undefined;
  return builtInDefinitionName(ctx.type.group, ctx.version.name, ctx.type.kind);
}

/**
 * Built-in kinds: a JSON body whose values do not fit the kind's Go types (a string for an int32, an
 * object for a list) is a 400, with encoding/json's text as kube-apiserver's decoder answers it:
 * `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go
 * struct field DeploymentSpec.spec.replicas of type int32`.
 */
export function checkBuiltInDecoding(ctx: RequestContext, body: JsonObject): void {
  const definition = definitionOf(ctx);
  if (definition === undefined) return;
  const error = jsonDecodeError(body, definition);
  if (error === undefined) return;
  const kind = ctx.type.kind;
  throw badRequest(`${kind} in version "${ctx.version.name}" cannot be handled as a ${kind}: ${error}`);
}

/**
 * Built-in kinds: a patch whose result does not decode into the kind's Go type is a 422 on the field
 * `patch` with no kind or name, as k8s.io/apiserver/pkg/endpoints/handlers/patch.go answers it — the value
 * is the patched JSON (JSON and merge patches, encoding/json's text) or the strategic merge patch as Go
 * prints it (FromUnstructured's text).
 */
export function checkPatchedBuiltIn(
  ctx: RequestContext,
  patched: JsonObject,
  patch: unknown,
  strategic: boolean,
): void {
  const definition = definitionOf(ctx);
  if (definition === undefined) return;
  const error = strategic
    ? unstructuredConvertError(patched, definition)
    : jsonDecodeError(patched, definition);
  if (error === undefined) return;
  const value = strategic ? goFormat(patch) : JSON.stringify(patched);
  const message = `Invalid value: ${JSON.stringify(value)}: ${error}`;
  throw new ApiError(
    failureStatus(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
      causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
    }),
  );
}

/**
 * Built-in kinds, server-side apply: an applied configuration whose values do not fit the schema is a 500
 * with structured-merge-diff's text, as kube-apiserver answers it (`failed to create typed patch object
 * (<namespace>/<name>; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got
 * string`).
 */
export function checkAppliedBuiltIn(ctx: RequestContext, applied: JsonObject): void {
  const definition = definitionOf(ctx);
  if (definition === undefined) return;
  const error = applyConfigTypeError(applied, definition);
  if (error === undefined) return;
  const meta = isJsonObject(applied.metadata) ? applied.metadata : {};
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const name = typeof meta.name === 'string' ? meta.name : '';
  const apiVersion = apiVersionOf(ctx.type.group, ctx.version.name);
  const status = failureStatus(
    500,
    '',
    `failed to create typed patch object (${namespace}/${name}; ${apiVersion}, Kind=${ctx.type.kind}): ${error}`,
  );
  delete status.reason; // kube's Status for this error has no reason
  throw new ApiError(status);
}

/** Fills the namespace from the URL; a different one in the body is a 400. */
export function checkNamespace(ctx: RequestContext, obj: JsonObject): void {
  const meta = metadataOf(obj);
  const inBody = meta.namespace;
  if (!ctx.type.namespaced) {
    if (inBody !== undefined && inBody !== '') {
      throw invalid(ctx.type, stringAt(meta, 'name') ?? '', [
        {
          reason: 'FieldValueForbidden',
          message: 'Forbidden: not allowed on this type',
          field: 'metadata.namespace',
        },
      ]);
    }
    delete meta.namespace;
    return;
  }
  if (inBody !== undefined && inBody !== '' && inBody !== ctx.info.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  meta.namespace = ctx.info.namespace;
}

/** The name in the body must equal the name in the URL. */
export function checkName(ctx: RequestContext, obj: JsonObject): void {
  const meta = metadataOf(obj);
  const name = meta.name;
  if (name === undefined || name === '') {
    meta.name = ctx.info.name;
    return;
  }
  if (name !== ctx.info.name) {
    throw badRequest(
      `the name of the object (${display(name)}) does not match the name on the URL (${ctx.info.name ?? ''})`,
    );
  }
}

function schemaWithoutMeta(schema: JSONSchemaProps): JSONSchemaProps {
  const properties = { ...(schema.properties ?? {}) };
  delete properties.apiVersion;
  delete properties.kind;
  delete properties.metadata;
  const required = (schema.required ?? []).filter(
    (r) => r !== 'apiVersion' && r !== 'kind' && r !== 'metadata',
  );
  return { ...schema, properties, required };
}

/** What admitSchema does besides pruning, defaulting and validating. */
export interface AdmitOptions {
  /**
   * A main-resource update of a type with a status subresource: the status is reset to this (the stored)
   * object's after decoding and before validation, as kube's PrepareForUpdate does, so schema checks and
   * CEL rules see the stored status, never the one the client sent.
   */
  statusFrom?: JsonObject;
  /**
   * false: prune and default only (what kube's decoder does), leaving schema and CEL validation for after
   * the mutating admission webhooks. Default true.
   */
  validate?: boolean;
}

/**
 * Custom resources: prunes unknown fields (honouring fieldValidation Strict/Warn/Ignore), applies
 * defaults and validates against the version's structural schema. Mutates and returns `obj`.
 */
export function admitSchema(
  ctx: RequestContext,
  obj: JsonObject,
  old?: JsonObject,
  opts: AdmitOptions = {},
): JsonObject {
  const schema = ctx.version.schema;
  if (schema === undefined) return ctx.type.builtin ? admitBuiltIn(ctx, obj) : obj;
  const { apiVersion, kind, metadata, ...body } = obj;
  const bodySchema = schemaWithoutMeta(schema);
  const unknown = pruneUnknownFields(body, bodySchema).map((p) => p.replace(/^\./, ''));
  pruneNonNullableNulls(body, bodySchema);
  const meta = isJsonObject(metadata) ? metadata : {};
  for (const key of Object.keys(meta)) {
    if (!OBJECT_META_FIELDS.has(key)) {
      unknown.push(`metadata.${key}`);
      Reflect.deleteProperty(meta, key);
    }
  }
  reportUnknownFields(ctx, unknown);
  applySchemaDefaults(body, bodySchema);
  if (opts.validate === false) return { apiVersion, kind, metadata: meta, ...body };
  if (opts.statusFrom !== undefined) {
    // k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go PrepareForUpdate runs after
    // the decoder pruned and defaulted the body and before ValidateUpdate.
    if (opts.statusFrom.status === undefined) delete body.status;
    else body.status = opts.statusFrom.status;
  }
  const causes = validateAgainstSchema(body, bodySchema);
  const admitted = { apiVersion, kind, metadata: meta, ...body };
  if (schemaHasRules(schema)) {
    // kube runs CEL rules unless the schema check found a type error (hasBlockingErr,
    // k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go).
    if (causes.some((c) => c.reason === 'FieldValueTypeInvalid' || c.reason === 'FieldValueNotSupported')) {
      causes.push(
        fieldError.invalid(
          '',
          undefined,
          'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
        ),
      );
    } else {
      causes.push(...validateCelRules(admitted, old, schema));
    }
  }
  if (causes.length > 0) throw invalid(ctx.type, stringAt(meta, 'name') ?? '', causes);
  return admitted;
}

/**
 * fieldValidation for fields the schema does not know (already dropped): Strict → 400 strict decoding
 * error, Warn (the default) → one `Warning` header each, Ignore → nothing.
 */
function reportUnknownFields(ctx: RequestContext, unknown: string[]): void {
  if (unknown.length === 0) return;
  const mode = ctx.query.get('fieldValidation') ?? 'Warn';
  const texts = unknown.map((p) => `unknown field "${p}"`);
  if (mode === 'Strict') {
    const kindName = ctx.type.kind;
    throw badRequest(
      `${kindName} in version "${ctx.version.name}" cannot be handled as a ${kindName}: strict decoding error: ${texts.join(', ')}`,
    );
  }
  if (mode !== 'Ignore') ctx.warnings.push(...texts);
}

/**
 * Built-in kinds: fields the generated OpenAPI schema does not describe are dropped (kube's Go decoding
 * drops them) and reported per fieldValidation, as for custom resources.
 */
function admitBuiltIn(ctx: RequestContext, obj: JsonObject): JsonObject {
  const schema = builtInSchema(ctx.type.group, ctx.version.name, ctx.type.kind);
  if (schema === undefined) return obj;
  reportUnknownFields(ctx, pruneWithTrustedSchema(obj, schema));
  const definition = definitionOf(ctx);
  if (definition !== undefined) {
    canonicalizeQuantities(obj, definition);
    dropEmptyOmitted(obj, definition);
  }
  if (ctx.type.group === '' && ctx.type.kind === 'Pod') convertPodStatusIps(obj);
  return obj;
}

/** Standard ObjectMeta validation; 422 with one cause per field. */
export function validateMeta(
  ctx: RequestContext,
  obj: JsonObject,
  operation: 'create' | 'update',
  old?: JsonObject,
): void {
  const causes: FieldCause[] = validateObjectMeta(obj, {
    kind: { group: ctx.type.group, version: ctx.version.name, kind: ctx.type.kind },
    namespaced: ctx.type.namespaced,
    operation,
    ...(old === undefined ? {} : { old }),
  });
  if (causes.length > 0) throw invalid(ctx.type, stringAt(metadataOf(obj), 'name') ?? '', causes);
  if (!ctx.type.builtin) {
    // Custom resources accept unqualified finalizers, with a warning (built-ins reject them above).
    stringsAt(metadataOf(obj), 'finalizers').forEach((f, i) => {
      if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
        ctx.warnings.push(
          `metadata.finalizers[${i}]: "${f}": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`,
        );
      }
    });
  }
}

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);
