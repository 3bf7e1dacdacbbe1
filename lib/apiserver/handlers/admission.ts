import {
  applySchemaDefaults,
  pruneUnknownFields,
  validateAgainstSchema,
  validateObjectMeta,
} from '../algorithms.js';
import { cloneJson } from '../patch/json-value.js';
import { commonUpdateMetaCauses } from '../validation/object-meta.js';
import { checkQualifiedName } from '../validation/name-rules.js';
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
  fillValueStructs,
  goFormat,
  jsonDecodeError,
  unstructuredConvertError,
} from '../builtin/go-decode.js';
import { apiVersionOf } from '../resource-type.js';
import { customResourceApplyError } from '../schema/apply-typed.js';
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
 * Server-side apply: an applied configuration that does not fit the kind's schema is a 500 with
 * structured-merge-diff's text, as kube-apiserver answers it (`failed to create typed patch object
 * (<namespace>/<name>; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got
 * string`) — built-in kinds by their generated schemas, custom resources by their structural schema (a
 * list-map item without its key, a repeated set value, an undeclared field as well).
 */
export function checkAppliedBuiltIn(ctx: RequestContext, applied: JsonObject): void {
  const definition = definitionOf(ctx);
  const schema = ctx.version.schema;
  let error: string | undefined;
  if (definition !== undefined) error = applyConfigTypeError(applied, definition);
  else if (schema !== undefined && !ctx.type.builtin) error = customResourceApplyError(applied, schema);
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
  /**
   * The object's metadata causes: reported first in the same 422 as any schema or rule error, as
   * kube-apiserver's custom-resource validator checks metadata, schema, scale paths and rules together.
   */
  metaCauses?: FieldCause[];
  /** A write to the status subresource: only the scale subresource's status path is checked. */
  statusWrite?: boolean;
}

/** Cause types that keep kube from running CEL rules (hasBlockingErr in the custom-resource strategy). */
const BLOCKING_REASONS = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

/**
 * The scale subresource's replica paths must hold non-negative int32 values (ValidateScaleSpec and
 * ValidateScaleStatus of apiextensions-apiserver's customResourceValidator; the field is the dotted path).
 */
function scaleCauses(ctx: RequestContext, obj: JsonObject, statusOnly: boolean): FieldCause[] {
  const scale = ctx.type.scale;
  if (scale === undefined || ctx.type.builtin) return [];
  const causes: FieldCause[] = [];
  const paths = statusOnly ? [scale.statusReplicasPath] : [scale.specReplicasPath, scale.statusReplicasPath];
  for (const path of paths) {
    let value: unknown = obj;
    for (const part of path.replace(/^\./, '').split('.'))
      value = isJsonObject(value) ? value[part] : undefined;
    if (typeof value !== 'number' || !Number.isInteger(value)) continue;
    if (value < 0) causes.push(fieldError.invalid(path, value, 'should be a non-negative integer'));
    else if (value > 2147483647) {
      causes.push(fieldError.invalid(path, value, 'should be less than or equal to 2147483647'));
    }
  }
  return causes;
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
  // A body the decoder reads loses its nulls in fields that cannot hold one; a server-side apply result is
  // no decoded body (kube validates it as merged), so a list or map its pruning left null stays null.
  const applied = (ctx.req.headers['content-type'] ?? '').startsWith('application/apply-patch');
  if (!applied) pruneNonNullableNulls(body, bodySchema);
  const meta = isJsonObject(metadata) ? metadata : {};
  for (const key of Object.keys(meta)) {
    if (!OBJECT_META_FIELDS.has(key)) {
      unknown.push(`metadata.${key}`);
      Reflect.deleteProperty(meta, key);
    }
  }
  if (ctx.unknownFieldsReported !== true) reportUnknownFields(ctx, unknown);
  applySchemaDefaults(body, bodySchema);
  if (opts.validate === false) return { apiVersion, kind, metadata: meta, ...body };
  if (opts.statusFrom !== undefined) {
    // k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go PrepareForUpdate runs after
    // the decoder pruned and defaulted the body and before ValidateUpdate.
    if (opts.statusFrom.status === undefined) delete body.status;
    else body.status = opts.statusFrom.status;
  }
  const admitted = { apiVersion, kind, metadata: meta, ...body };
  // A status write validates the status alone, against the status schema (ValidateStatusUpdate).
  const statusSchema = bodySchema.properties?.status;
  const schemaCauses =
    opts.statusWrite === true
      ? statusSchema === undefined || body.status === undefined
        ? []
        : validateAgainstSchema(body.status, statusSchema, 'status', 'status')
      : validateAgainstSchema(body, bodySchema);
  const causes = [
    ...(opts.metaCauses ?? []),
    ...schemaCauses,
    ...scaleCauses(ctx, admitted, opts.statusWrite === true),
  ];
  if (schemaHasRules(schema)) {
    // kube runs CEL rules unless an error so far blocks them (hasBlockingErr,
    // k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go); the note has no field.
    if (causes.some((c) => BLOCKING_REASONS.has(c.reason))) {
      causes.push(
        fieldError.invalid(
          '<nil>',
          null,
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
 * The metadata causes of a create or update (for {@link AdmitOptions.metaCauses}), as kube-apiserver
 * gathers them: on create the kind's ObjectMeta validation; on update the generic update path's own
 * checks first, then the kind's (so one bad label can be several causes).
 */
export function metaCausesOf(
  ctx: RequestContext,
  obj: JsonObject,
  operation: 'create' | 'update',
  old?: JsonObject,
): FieldCause[] {
  const own = validateObjectMeta(obj, {
    kind: { group: ctx.type.group, version: ctx.version.name, kind: ctx.type.kind },
    namespaced: ctx.type.namespaced,
    operation,
    ...(old === undefined ? {} : { old }),
  });
  if (operation === 'create' || old === undefined) return own;
  return [...commonUpdateMetaCauses(obj, old, ctx.type.namespaced), ...own];
}

/**
 * A POST or PUT body's unknown fields, reported (or, with fieldValidation=Strict, refused) as kube-apiserver's
 * decoder does — before the object or its namespace is looked up, so a PUT of a missing object still warns.
 * Admission then drops them without reporting them again.
 */
export function reportBodyUnknownFields(ctx: RequestContext, body: JsonObject): void {
  reportUnknownFields(ctx, unknownFieldsOf(ctx, body));
  ctx.unknownFieldsReported = true;
}

/** The fields of `obj` the kind's schema does not know (obj is not changed). */
function unknownFieldsOf(ctx: RequestContext, obj: JsonObject): string[] {
  const copy = cloneJson(obj);
  const schema = ctx.version.schema;
  if (schema !== undefined) {
    const { apiVersion: _v, kind: _k, metadata, ...rest } = copy;
    const unknown = pruneUnknownFields(rest, schemaWithoutMeta(schema)).map((p) => p.replace(/^\./, ''));
    if (isJsonObject(metadata)) {
      for (const key of Object.keys(metadata))
        if (!OBJECT_META_FIELDS.has(key)) unknown.push(`metadata.${key}`);
    }
    return unknown;
  }
  const builtIn = ctx.type.builtin
    ? builtInSchema(ctx.type.group, ctx.version.name, ctx.type.kind)
    : undefined;
  return builtIn === undefined ? [] : pruneWithTrustedSchema(copy, builtIn);
}

/**
 * A patched object's unknown fields, found when kube decodes it: warned about (fieldValidation=Warn, the
 * default), or with Strict a 422 on the field `patch` quoting the patched object (JSON and merge patches)
 * or the strategic merge patch as Go prints it. `earlier` are the JSON patch's own unknown members.
 */
export function reportPatchedUnknownFields(
  ctx: RequestContext,
  patched: JsonObject,
  earlier: string[],
  strategicPatch?: unknown,
): void {
  const texts = [...earlier, ...unknownFieldsOf(ctx, patched).map((p) => `unknown field "${p}"`)];
  ctx.unknownFieldsReported = true;
  const mode = ctx.query.get('fieldValidation') ?? 'Warn';
  if (texts.length === 0 || mode === 'Ignore') return;
  if (mode !== 'Strict') {
    ctx.warnings.push(...texts);
    return;
  }
  const shown = strategicPatch === undefined ? JSON.stringify(patched) : goFormat(strategicPatch);
  const message = `Invalid value: ${JSON.stringify(shown)}: strict decoding error: ${texts.join(', ')}`;
  throw new ApiError(
    failureStatus(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
      causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
    }),
  );
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
  const unknown = pruneWithTrustedSchema(obj, schema);
  if (ctx.unknownFieldsReported !== true) reportUnknownFields(ctx, unknown);
  const definition = definitionOf(ctx);
  if (definition !== undefined) {
    canonicalizeQuantities(obj, definition);
    dropEmptyOmitted(obj, definition);
    fillValueStructs(obj, definition);
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
  const causes = metaCausesOf(ctx, obj, operation, old);
  if (causes.length > 0) throw invalid(ctx.type, stringAt(metadataOf(obj), 'name') ?? '', causes);
  if (!ctx.type.builtin) ctx.warnings.push(...finalizerWarnings(obj, old));
}

/**
 * Custom resources accept unqualified finalizers, with a warning for each one a write adds (built-ins
 * reject them): apiextensions-apiserver's generateWarningsFromObj, in sorted order.
 */
function finalizerWarnings(obj: JsonObject, old: JsonObject | undefined): string[] {
  const before = new Set(old === undefined ? [] : stringsAt(metadataOf(old), 'finalizers'));
  const added = [...new Set(stringsAt(metadataOf(obj), 'finalizers'))].filter((f) => !before.has(f)).sort();
  const warnings: string[] = [];
  for (const f of added) {
    const at = `metadata.finalizers: ${JSON.stringify(f)}`;
    for (const problem of checkQualifiedName(f)) warnings.push(`${at}: ${problem}`);
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      warnings.push(
        f.includes('.')
          ? `${at}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`
          : `${at}: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`,
      );
    }
  }
  return warnings;
}

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);
