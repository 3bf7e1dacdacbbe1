import type { Reply } from '../http-io.js';
import { requestAdmission, StaleWriteError } from '../webhooks/request-admission.js';
import { rememberWritten } from '../webhooks/request-conversion.js';
import { parseJsonObject } from '../http-io.js';
import { display, metadataOf, objectAt, stringAt, type JsonObject } from '../json.js';
import { deleteObject, type PropagationPolicy } from '../object-lifecycle.js';
import { apiVersionOf, typeKey } from '../resource-type.js';
import { badRequest, deleteSuccess, forbidden, invalid, methodNotAllowed } from '../status.js';
import { fieldError } from '../validation/field-errors.js';
import { namespaceOf, nameOf, selectorFilter } from './filter.js';
import { listItem, presentObject } from './presentation.js';
import { checkDryRunValues, type RequestContext } from './request-context.js';
import { currentObject } from './update.js';
import { deletePreconditionConflict } from './preconditions.js';

/** Namespaces the NamespaceLifecycle admission plugin never lets anyone delete. */
const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

interface DeleteOptions {
  policy?: PropagationPolicy;
  uid?: string;
  resourceVersion?: string;
  gracePeriodSeconds?: number;
  dryRun: boolean;
  /** `orphanDependents: false` was given: a deletion that waits (finalizers) answers 202. */
  cascading?: boolean;
}

/** DeleteOptions from a JSON body when present, else from the query (as kube-apiserver decodes them). */
function deleteOptionsOf(ctx: RequestContext): DeleteOptions {
  let source: JsonObject;
  if (ctx.body.length > 0 && ctx.body.toString('utf8').trim() !== '') {
    source = parseJsonObject(ctx.body, 'DeleteOptions');
  } else {
    source = {};
    for (const key of ['propagationPolicy', 'orphanDependents', 'gracePeriodSeconds']) {
      const value = ctx.query.get(key);
      if (value !== null) source[key] = key === 'orphanDependents' ? value === 'true' : value;
    }
    const dry = ctx.query.getAll('dryRun');
    if (dry.length > 0) source.dryRun = dry;
  }
  const dryRun = Array.isArray(source.dryRun) ? source.dryRun.map((v) => String(v)) : [];
  checkDryRunValues(ctx.info.verb, dryRun);
  const options: DeleteOptions = { dryRun: dryRun.includes('All') };
  const policy = source.propagationPolicy;
  if (policy !== undefined && policy !== null) {
    if (policy !== 'Background' && policy !== 'Foreground' && policy !== 'Orphan') {
      // ValidateDeleteOptions: a 422 on meta.k8s.io's DeleteOptions.
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
        fieldError.notSupported('propagationPolicy', display(policy), [
          'Foreground',
          'Background',
          'Orphan',
          'nil',
        ]),
      ]);
    }
    options.policy = policy;
  } else if (source.orphanDependents === true) {
    options.policy = 'Orphan';
  } else if (source.orphanDependents === false) {
    options.policy = 'Background';
  }
  if (source.orphanDependents === false) options.cascading = true;
  const grace = source.gracePeriodSeconds;
  if (grace !== undefined && grace !== null) {
    const seconds = typeof grace === 'number' ? grace : Number(grace);
    if (!Number.isInteger(seconds)) {
      throw badRequest(`gracePeriodSeconds: must be an integer, got ${JSON.stringify(grace)}`);
    }
    options.gracePeriodSeconds = seconds;
  }
  const preconditions = objectAt(source, 'preconditions');
  const uid = stringAt(preconditions, 'uid');
  if (uid !== undefined) options.uid = uid;
  const rv = stringAt(preconditions, 'resourceVersion');
  if (rv !== undefined) options.resourceVersion = rv;
  return options;
}

function deleteOne(
  ctx: RequestContext,
  current: JsonObject,
  options: DeleteOptions,
): { object: JsonObject; deleted: boolean } {
  const meta = metadataOf(current);
  const name = nameOf(current);
  if (options.uid !== undefined && options.uid !== meta.uid) {
    throw deletePreconditionConflict(ctx.type, name, 'UID', options.uid, meta.uid);
  }
  if (options.resourceVersion !== undefined && options.resourceVersion !== meta.resourceVersion) {
    throw deletePreconditionConflict(
      ctx.type,
      name,
      'ResourceVersion',
      options.resourceVersion,
      meta.resourceVersion,
    );
  }
  return deleteObject(
    ctx.core,
    ctx.type,
    current,
    options.policy,
    options.dryRun,
    options.gracePeriodSeconds,
  );
}

/** DELETE of one object. */
export function handleDelete(ctx: RequestContext): Reply | Promise<Reply> {
  if (ctx.info.subresource !== undefined) throw methodNotAllowed();
  const options = deleteOptionsOf(ctx);
  if (
    ctx.type.group === '' &&
    ctx.type.resource === 'namespaces' &&
    IMMORTAL_NAMESPACES.has(ctx.info.name ?? '')
  ) {
    // kube: k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go
    throw forbidden(`namespaces "${ctx.info.name ?? ''}" is forbidden: this namespace may not be deleted`, {
      name: ctx.info.name ?? '',
      kind: 'namespaces',
    });
  }
  const current = currentObject(ctx);
  // Converted (or ConversionNeeded) before anything is deleted, so the answer can be presented after.
  const presented = presentObject(ctx, current);
  const admission = requestAdmission(ctx, 'DELETE', presented);
  if (admission === undefined) return deleteReply(ctx, current, deleteOne(ctx, current, options), options);
  return (async () => {
    await admission.mutate(undefined);
    await admission.validate(undefined);
    const now = currentObject(ctx);
    const stale = metadataOf(now).resourceVersion !== metadataOf(current).resourceVersion;
    if (stale && options.resourceVersion === undefined) throw new StaleWriteError();
    return deleteReply(ctx, now, deleteOne(ctx, now, options), options);
  })();
}

function deleteReply(
  ctx: RequestContext,
  current: JsonObject,
  result: { object: JsonObject; deleted: boolean },
  options: DeleteOptions,
): Reply {
  if (ctx.conversions !== undefined && result.object !== current) {
    rememberWritten(ctx, result.object, presentObject(ctx, current));
  }
  if (result.deleted && !ctx.type.deleteReturnsObject) {
    return { code: 200, body: deleteSuccess(ctx.type, nameOf(current), String(metadataOf(current).uid)) };
  }
  // kube answers 202 for a deletion that waits when the client asked for cascading with orphanDependents.
  const code = !result.deleted && options.cascading === true ? 202 : 200;
  return { code, body: presentObject(ctx, result.object) };
}

/** DELETE of a collection: every matching object, answered as a list of what was deleted. */
export function handleDeleteCollection(ctx: RequestContext): Reply {
  if (ctx.info.subresource !== undefined) throw methodNotAllowed();
  const options = deleteOptionsOf(ctx);
  const matches = selectorFilter(ctx);
  const items = ctx.core.store.list(typeKey(ctx.type), namespaceOf(ctx)).filter(matches);
  for (const item of items) deleteOne(ctx, item, { ...options, uid: undefined, resourceVersion: undefined });
  // kube answers the list it deleted from, as it was listed (Store.DeleteCollection).
  const done = items;
  return {
    code: 200,
    body: {
      kind: ctx.type.listKind,
      apiVersion: apiVersionOf(ctx.type.group, ctx.version.name),
      // Custom resources are unstructured lists, whose metadata always carries `continue`.
      metadata: {
        ...(ctx.type.builtin ? {} : { continue: '' }),
        resourceVersion: String(ctx.core.store.currentRv),
      },
      items: done.map((o) => listItem(ctx, o)),
    },
  };
}
