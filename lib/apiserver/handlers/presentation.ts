import { renderTable } from '../algorithms.js';
import { metadataOf, type JsonObject } from '../json.js';
import { apiVersionOf } from '../resource-type.js';
import { cloneJson } from '../patch/json-value.js';
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
