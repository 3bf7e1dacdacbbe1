import { renderTable } from '../algorithms.js';
import { metadataOf, type JsonObject } from '../json.js';
import { apiVersionOf } from '../resource-type.js';
import { cloneJson } from '../patch/json-value.js';
import { notAcceptable, type ApiError } from '../status.js';
import { internalPackage } from './decode-errors.js';
import { pruneNonNullableNulls, pruneUnknownFields } from '../schema/prune.js';
import type { RequestContext } from './request-context.js';
import { convertedFor } from '../webhooks/request-conversion.js';

/** The object as the requested version shows it (objects are stored in the storage version). */
export function presentObject(ctx: RequestContext, obj: JsonObject): JsonObject {
  const apiVersion = apiVersionOf(ctx.type.group, ctx.version.name);
  if (obj.apiVersion === apiVersion && obj.kind === ctx.type.kind) return obj;
  if (ctx.conversions !== undefined) return convertedFor(ctx, ctx.conversions, obj);
  return { ...obj, apiVersion, kind: ctx.type.kind };
}

/**
 * The object as stored (storage version). A custom resource written through another version is pruned
 * against the storage version's schema on the way (fields it does not know, and nulls it does not allow,
 * are dropped without a warning), as apiextensions-apiserver's storage converter does
 * (k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go, schemaCoercingConverter).
 */
export function toStorage(ctx: RequestContext, obj: JsonObject): JsonObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  const stored = {
    apiVersion: apiVersionOf(ctx.type.group, ctx.type.storageVersion),
    kind: ctx.type.kind,
    ...rest,
  };
  const schema = ctx.type.storageSchema;
  if (ctx.type.builtin || schema === undefined || ctx.version.name === ctx.type.storageVersion) return stored;
  const copy = cloneJson(stored);
  pruneUnknownFields(copy, schema);
  pruneNonNullableNulls(copy, schema);
  return copy;
}

/** The client asked for a meta.k8s.io Table (`kubectl get`). */
export function wantsTable(ctx: RequestContext): boolean {
  const accept = ctx.req.headers.accept ?? '';
  const first = accept.split(',')[0] ?? '';
  return first.includes('as=Table');
}

function includeObjectOf(ctx: RequestContext): 'None' | 'Metadata' | 'Object' {
  const value = ctx.query.get('includeObject');
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

/** Renders objects as a Table with the type's printer columns. */
export function tableOf(ctx: RequestContext, objects: JsonObject[], listMeta?: JsonObject): JsonObject {
  const options: Parameters<typeof renderTable>[2] = {
    now: ctx.core.clock(),
    includeObject: includeObjectOf(ctx),
  };
  if (listMeta !== undefined) options.listMeta = listMeta;
  return renderTable(
    objects.map((o) => presentObject(ctx, o)),
    ctx.version.printerColumns,
    options,
  );
}

/** A list item: built-in (typed) list items carry no apiVersion/kind, custom resource items do. */
export function listItem(ctx: RequestContext, obj: JsonObject): JsonObject {
  const shown = presentObject(ctx, obj);
  if (!ctx.type.builtin) return shown;
  const { apiVersion: _a, kind: _k, ...rest } = shown;
  return { ...rest, metadata: metadataOf(shown) };
}

/** The metadata-only forms of meta.k8s.io a client may ask for with `Accept: …;as=…;g=meta.k8s.io;v=…`. */
export interface PartialForm {
  kind: 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`, as asked. */
  apiVersion: string;
}

const MEDIA_TYPES_ACCEPTED =
  'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';

const TRANSFORMS = new Set(['Table', 'PartialObjectMetadata', 'PartialObjectMetadataList']);

/**
 * The metadata-only form the request asks for, or undefined for the object itself (or a Table). Like kube's
 * output negotiation, the first acceptable clause of `Accept` wins; a clause naming an unknown `as=` (or
 * one without `g=meta.k8s.io` and `v=v1`/`v1beta1`) is skipped, and when every clause is such a one the
 * answer is 406 with kube's message.
 */
export function partialForm(ctx: RequestContext): PartialForm | undefined {
  const accept = ctx.req.headers.accept ?? '';
  if (!accept.includes('as=')) return undefined;
  for (const clause of accept.split(',')) {
    const [type = '', ...parameters] = clause.split(';').map((part) => part.trim());
    const params = new Map<string, string>();
    for (const parameter of parameters) {
      const eq = parameter.indexOf('=');
      if (eq > 0) params.set(parameter.slice(0, eq).trim(), parameter.slice(eq + 1).trim());
    }
    const as = params.get('as');
    if (as === undefined) {
      if (type === '' || type.startsWith('text/')) continue;
      return undefined;
    }
    const version = params.get('v');
    if (
      !TRANSFORMS.has(as) ||
      params.get('g') !== 'meta.k8s.io' ||
      (version !== 'v1' && version !== 'v1beta1')
    ) {
      continue;
    }
    if (as === 'Table') return undefined;
    return { kind: as as PartialForm['kind'], apiVersion: `meta.k8s.io/${version}` };
  }
  throw notAcceptable(MEDIA_TYPES_ACCEPTED);
}

/** The Go type kube names in its 406 for a form that does not fit (`*core.SecretList`). */
function goTypeOf(ctx: RequestContext, list: boolean): string {
  const suffix = list ? 'List' : '';
  if (!ctx.type.builtin) return `*unstructured.Unstructured${suffix}`;
  return `*${internalPackage(ctx.type.group)}.${ctx.type.kind}${suffix}`;
}

/** kube's 406 for PartialObjectMetadata asked of a list, or PartialObjectMetadataList of one object. */
export function wrongPartialForm(ctx: RequestContext, form: PartialForm, list: boolean): ApiError {
  return notAcceptable(
    list
      ? `you requested ${form.kind}, but the requested object is a list (${goTypeOf(ctx, true)})`
      : `you requested ${form.kind}, but the requested object is not a list (${goTypeOf(ctx, false)})`,
  );
}

/** An object as a PartialObjectMetadata: its metadata only (managedFields included, as kube sends it). */
export function partialObject(form: PartialForm, obj: JsonObject): JsonObject {
  return { kind: 'PartialObjectMetadata', apiVersion: form.apiVersion, metadata: metadataOf(obj) };
}
