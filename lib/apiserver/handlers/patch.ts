import { cloneJson } from '../patch/json-value.js';
import {
  applyJsonPatch,
  decodeJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  formatApplyConflictMessage,
  serverSideApply,
} from '../algorithms.js';
import type { Reply } from '../http-io.js';
import { parseJson, parseJsonObject } from '../http-io.js';
import { formatTime, isJsonObject, metadataOf, type JsonObject } from '../json.js';
import { isPatchError } from '../patch/patch-error.js';
import { typeKey } from '../resource-type.js';
import {
  ApiError,
  badRequest,
  failureStatus,
  methodNotAllowed,
  notFound,
  pathNotFound,
  unsupportedMediaType,
} from '../status.js';
import {
  checkAppliedBuiltIn,
  checkName,
  checkNamespace,
  checkPatchedBuiltIn,
  checkTypeMeta,
  reportPatchedUnknownFields,
} from './admission.js';
import { createObject } from './create.js';
import { presentObject } from './presentation.js';
import { kindRefOf, resetFieldsOf, type RequestContext } from './request-context.js';
import { scaleOf, scaleToObject } from './scale.js';
import { updateObject } from './update.js';
import { patchDecodeError } from './decode-errors.js';

const ACCEPTED = 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml';

type PatchKind = 'json' | 'merge' | 'strategic' | 'apply';

function patchKindOf(ctx: RequestContext): PatchKind {
  const contentType = (ctx.req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  // Built only when thrown: an error captures a stack trace, which every PATCH paid for (~1.5 % of a
  // patch-heavy process's CPU in a profile). Built-in kinds: go-restful finds no PATCH route for the type
  // (its own 415 text, empty details); custom resources: apiextensions-apiserver's handler names the
  // patch types it takes.
  const unknown = (): ApiError =>
    ctx.type.builtin
      ? unsupportedMediaType('415: Unsupported Media Type', {})
      : unsupportedMediaType(
          `the body of the request was in an unknown format - accepted media types include: ${ACCEPTED}`,
        );
  switch (contentType) {
    case 'application/json-patch+json':
      return 'json';
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/strategic-merge-patch+json':
      if (!ctx.type.builtin) throw unknown();
      return 'strategic';
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+json':
      return 'apply';
    default:
      throw unknown();
  }
}

function patchFailure(e: unknown): never {
  if (isPatchError(e)) throw new ApiError(failureStatus(e.code, e.reason, e.message, e.details));
  throw e;
}

/** PATCH of an object or its status/scale subresource. */
export function handlePatch(ctx: RequestContext): Reply | Promise<Reply> {
  // kube: built-in collections have no PATCH route (405); the custom-resource handler serves the
  // collection path and rejects the missing name (k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go).
  if (ctx.info.name === undefined)
    throw ctx.type.builtin ? methodNotAllowed() : badRequest('name must be provided');
  const kind = patchKindOf(ctx);
  const sub = ctx.info.subresource;
  if (
    sub !== undefined &&
    !((sub === 'status' && ctx.type.statusSubresource) || (sub === 'scale' && ctx.type.scale))
  ) {
    throw pathNotFound();
  }
  const name = ctx.info.name;
  const current = ctx.core.store.get(typeKey(ctx.type), ctx.info.namespace, name);
  if (kind === 'apply') return applyPatch(ctx, current);
  if (!current) throw notFound(ctx.type, name);
  const target = sub === 'scale' ? scaleOf(ctx, current, true) : cloneJson(presentObject(ctx, current));
  let patched: unknown;
  let patch: unknown;
  let opUnknown: string[] = [];
  try {
    const decodeError = patchDecodeError(ctx.body, kind);
    if (decodeError !== undefined) throw decodeError;
    if (kind === 'json') {
      const validation = ctx.query.get('fieldValidation') ?? 'Warn';
      const decoded = decodeJsonPatch(parseJson(ctx.body, 'the JSON patch'), validation !== 'Ignore');
      patched = applyJsonPatch(target, decoded.operations);
      opUnknown = decoded.unknownFields.map((f) => `json patch unknown field "${f}"`);
    } else {
      patch = parseJsonObject(ctx.body, 'the patch');
      patched =
        kind === 'merge'
          ? applyMergePatch(target, patch)
          : applyStrategicMergePatch(
              target,
              patch,
              kindRefOf(ctx, sub === 'scale' ? 'Scale' : ctx.type.kind),
            );
    }
  } catch (e) {
    patchFailure(e);
  }
  if (!isJsonObject(patched)) throw badRequest('the patch must leave an object');
  if (sub !== 'scale') {
    checkPatchedBuiltIn(ctx, patched, patch, kind === 'strategic');
    reportPatchedUnknownFields(ctx, patched, opUnknown, kind === 'strategic' ? patch : undefined);
  }
  if (sub === 'scale')
    return updateObject(ctx, current, scaleToObject(ctx, current, patched), { requireRv: false });
  checkTypeMeta(ctx, patched);
  checkName(ctx, patched);
  checkNamespace(ctx, patched);
  return updateObject(ctx, current, patched, { requireRv: false });
}

function applyPatch(ctx: RequestContext, current: JsonObject | undefined): Reply | Promise<Reply> {
  const manager = ctx.query.get('fieldManager');
  if (manager === null || manager === '') {
    throw badRequest(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
  }
  if (manager.length > 128) throw badRequest('fieldManager: Too long: may not be more than 128 bytes');
  // A subresource is never created by an apply: the object is looked up before the body is read.
  if (current === undefined && ctx.info.subresource !== undefined)
    throw notFound(ctx.type, ctx.info.name ?? '');
  let applied: JsonObject;
  try {
    applied = parseJsonObject(ctx.body, 'the apply patch');
  } catch {
    throw badRequest('the apply patch must be JSON (YAML apply bodies are not supported by this server)');
  }
  if (metadataOf(applied).managedFields !== undefined) {
    throw badRequest('metadata.managedFields must be nil');
  }
  checkAppliedBuiltIn(ctx, applied);
  checkTypeMeta(ctx, applied);
  checkName(ctx, applied);
  checkNamespace(ctx, applied);
  const force = ctx.query.get('force') === 'true';
  const apiVersion = String(applied.apiVersion);
  const options: Parameters<typeof serverSideApply>[2] = {
    fieldManager: manager,
    force,
    now: formatTime(ctx.core.clock()),
    apiVersion,
    kind: kindRefOf(ctx),
    resetFields: resetFieldsOf(ctx),
  };
  if (ctx.info.subresource !== undefined) options.subresource = ctx.info.subresource;
  let result: ReturnType<typeof serverSideApply>;
  try {
    result = serverSideApply(current ? cloneJson(presentObject(ctx, current)) : undefined, applied, options);
  } catch (e) {
    patchFailure(e);
  }
  if (result.conflicts.length > 0) {
    // kube's apply conflict (k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager) carries only the causes.
    const status = failureStatus(409, 'Conflict', formatApplyConflictMessage(result.conflicts), {
      causes: result.conflicts,
    });
    throw new ApiError(status);
  }
  if (!current) {
    if (ctx.info.subresource !== undefined) throw notFound(ctx.type, ctx.info.name ?? '');
    return createObject(ctx, result.object, { managedFieldsSet: true });
  }
  return updateObject(ctx, current, result.object, { requireRv: false, managedFieldsSet: true });
}
