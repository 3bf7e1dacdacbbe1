import { normalizeObjectMeta, recordUpdate } from '../algorithms.js';
import type { Reply } from '../http-io.js';
import {
  deepEqual,
  display,
  formatTime,
  metadataOf,
  objectAt,
  stringAt,
  stringsAt,
  type JsonObject,
} from '../json.js';
import { afterKindWrite, isNamespaceType, prepareKind } from '../kind-hooks.js';
import { commitUpdate } from '../object-lifecycle.js';
import { typeKey } from '../resource-type.js';
import { conflict, invalid, methodNotAllowed, notFound, pathNotFound } from '../status.js';
import {
  admitSchema,
  checkBuiltInDecoding,
  checkName,
  checkNamespace,
  checkTypeMeta,
  validateMeta,
} from './admission.js';
import { presentObject, toStorage } from './presentation.js';
import { isDryRun, kindRefOf, managerOf, type RequestContext } from './request-context.js';
import { scaleOf, scaleToObject } from './scale.js';
import { parseObjectBody, typeMetaMismatch } from './decode-errors.js';
import { checkUnchanged, requestAdmission } from '../webhooks/request-admission.js';
import { convertsOnWrite, rememberWritten, toStorageVersion } from '../webhooks/request-conversion.js';
import { patchUidImmutable, updateUidConflict } from './preconditions.js';

const SERVER_MANAGED = [
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'selfLink',
];

export interface UpdateOptions {
  /** PUT: custom resources must carry metadata.resourceVersion. */
  requireRv: boolean;
  /** managedFields were already computed (server-side apply). */
  managedFieldsSet?: boolean;
}

/** The stored object addressed by the request, or 404. */
export function currentObject(ctx: RequestContext): JsonObject {
  const name = ctx.info.name ?? '';
  const current = ctx.core.store.get(typeKey(ctx.type), ctx.info.namespace, name);
  if (!current) throw notFound(ctx.type, name);
  return current;
}

/** PUT to an object or its status/scale/finalize subresource. */
export function handleUpdate(ctx: RequestContext): Reply | Promise<Reply> {
  if (ctx.info.name === undefined) throw methodNotAllowed();
  const body = parseObjectBody(ctx);
  if (ctx.info.subresource !== 'scale') {
    // kube's decoder fails on a foreign apiVersion/kind before it looks at any field.
    const mismatch = typeMetaMismatch(ctx, body);
    if (mismatch !== undefined) throw mismatch;
    checkBuiltInDecoding(ctx, body);
  }
  // kube checks the body's name against the URL before looking the object up
  // (k8s.io/apiserver/pkg/endpoints/handlers/update.go), so a mismatch is a 400 even when it is absent.
  if (ctx.info.subresource !== 'scale') checkName(ctx, body);
  const current = currentObjectOrCheck(ctx);
  if (ctx.info.subresource === 'scale') {
    return updateObject(ctx, current, scaleToObject(ctx, current, body), { requireRv: false });
  }
  checkTypeMeta(ctx, body);
  checkNamespace(ctx, body);
  return updateObject(ctx, current, body, { requireRv: true });
}

/** The stored object, after checking the subresource in the path exists for this type (404 otherwise). */
export function currentObjectOrCheck(ctx: RequestContext): JsonObject {
  const sub = ctx.info.subresource;
  if (sub !== undefined) {
    const ok =
      (sub === 'status' && ctx.type.statusSubresource) ||
      (sub === 'scale' && ctx.type.scale !== undefined) ||
      (sub === 'finalize' && isNamespaceType(ctx.type));
    if (!ok) throw pathNotFound();
  }
  return currentObject(ctx);
}

function withoutMeta(obj: JsonObject, dropStatus: boolean): JsonObject {
  const { metadata: _m, ...rest } = obj;
  if (dropStatus) delete rest.status;
  return rest;
}

/**
 * Shared by PUT and PATCH: subresource isolation, preconditions, validation, generation, commit.
 * Synchronous unless admission webhooks are configured: then mutating webhooks see the decoded and
 * defaulted candidate, validation runs on what they left, validating webhooks see the object as it would
 * be stored, and the write commits only if the stored object did not change meanwhile (else it starts
 * over, or answers 409 when the request named a resourceVersion).
 */
export function updateObject(
  ctx: RequestContext,
  current: JsonObject,
  candidate: JsonObject,
  opts: UpdateOptions,
): Reply | Promise<Reply> {
  const sub = ctx.info.subresource;
  const admission =
    sub === undefined || sub === 'status'
      ? requestAdmission(ctx, 'UPDATE', presentObject(ctx, current))
      : undefined;
  if (admission === undefined && !convertsOnWrite(ctx)) {
    return commitStaged(ctx, current, stageUpdate(ctx, current, candidate, opts));
  }
  return (async () => {
    let input = candidate;
    if (admission !== undefined) {
      const old = presentObject(ctx, current);
      const copy = { ...candidate, metadata: { ...metadataOf(candidate) } };
      const defaulted = admitSchema(ctx, copy, old, { validate: false });
      input = (await admission.mutate(defaulted)) ?? defaulted;
    }
    const staged = stageUpdate(ctx, current, input, opts);
    await admission?.validate(presentObject(ctx, staged));
    const storable = convertsOnWrite(ctx) ? await toStorageVersion(ctx, staged) : undefined;
    const rv = metadataOf(candidate).resourceVersion;
    checkUnchanged(ctx, current, rv !== undefined && rv !== '');
    return commitStaged(ctx, current, staged, storable);
  })();
}

/** Everything of an update up to the commit: the object to store, in the request's version. */
function stageUpdate(
  ctx: RequestContext,
  current: JsonObject,
  candidate: JsonObject,
  opts: UpdateOptions,
): JsonObject {
  const { core, type } = ctx;
  const sub = ctx.info.subresource;
  const cm = metadataOf(current);
  const candMeta = metadataOf(candidate);
  const name = stringAt(cm, 'name') ?? '';
  const rv = candMeta.resourceVersion;
  const uid = candMeta.uid;
  const foreignUid = uid !== undefined && uid !== '' && uid !== cm.uid;
  // A PUT's uid is a storage precondition, checked before anything else; a PATCH that changes it fails
  // validation (metadata.uid is immutable).
  if (foreignUid && ctx.info.verb === 'update')
    throw updateUidConflict(type, stringAt(cm, 'namespace'), name, uid, cm.uid);
  if (foreignUid && ctx.info.verb === 'patch') throw patchUidImmutable(type, name, uid);
  if (rv === undefined || rv === '') {
    if (opts.requireRv && !type.unconditionalUpdate && sub !== 'scale') {
      throw invalid(type, name, [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 0x0: must be specified for an update',
          field: 'metadata.resourceVersion',
        },
      ]);
    }
  } else if (rv !== cm.resourceVersion) {
    throw conflict(type, name);
  }
  if (foreignUid) {
    throw conflict(
      type,
      name,
      `Precondition failed: UID in precondition: ${display(uid)}, UID in object meta: ${display(cm.uid)}`,
    );
  }
  let next: JsonObject;
  if (sub === 'status') {
    next = { ...presentObject(ctx, current), metadata: { ...cm } };
    // Server-side apply to the status subresource computed the managedFields (subresource: status) too.
    if (opts.managedFieldsSet && candMeta.managedFields !== undefined) {
      metadataOf(next).managedFields = candMeta.managedFields;
    }
    if (candidate.status === undefined) delete next.status;
    else next.status = candidate.status;
    next = admitSchema(ctx, next, presentObject(ctx, current));
  } else if (sub === 'finalize') {
    const spec = objectAt(current, 'spec') ?? {};
    next = {
      ...current,
      metadata: { ...cm },
      spec: { ...spec, finalizers: stringsAt(objectAt(candidate, 'spec'), 'finalizers') },
    };
  } else if (sub === 'scale') {
    next = { ...candidate, metadata: { ...cm } };
    if (type.tracksGeneration && !deepEqual(withoutMeta(current, true), withoutMeta(next, true))) {
      metadataOf(next).generation = (typeof cm.generation === 'number' ? cm.generation : 0) + 1;
    }
  } else {
    const resetsStatus = type.statusSubresource && !isNamespaceType(type);
    next = admitSchema(
      ctx,
      { ...candidate, metadata: { ...candMeta } },
      presentObject(ctx, current),
      resetsStatus ? { statusFrom: current } : {},
    );
    const meta = metadataOf(next);
    for (const field of SERVER_MANAGED) {
      if (cm[field] === undefined) Reflect.deleteProperty(meta, field);
      else meta[field] = cm[field];
    }
    if (resetsStatus) {
      if (current.status === undefined) delete next.status;
      else next.status = current.status;
    }
    if (isNamespaceType(type)) next.status = current.status;
    if (cm.deletionTimestamp !== undefined) {
      const before = new Set(stringsAt(cm, 'finalizers'));
      const added = stringsAt(meta, 'finalizers').filter((f) => !before.has(f));
      if (added.length > 0) {
        throw invalid(type, name, [
          {
            reason: 'FieldValueForbidden',
            message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
            field: 'metadata.finalizers',
          },
        ]);
      }
    }
    prepareKind(core, type, next, current);
    validateMeta(ctx, next, 'update', current);
    if (
      type.tracksGeneration &&
      !deepEqual(withoutMeta(current, type.statusSubresource), withoutMeta(next, type.statusSubresource))
    ) {
      meta.generation = (typeof cm.generation === 'number' ? cm.generation : 0) + 1;
    }
  }
  if (!opts.managedFieldsSet) {
    const options: Parameters<typeof recordUpdate>[2] = {
      manager: managerOf(ctx),
      now: formatTime(core.clock()),
      apiVersion: String(presentObject(ctx, current).apiVersion),
      kind: kindRefOf(ctx),
    };
    if (sub !== undefined) options.subresource = sub;
    next = recordUpdate(presentObject(ctx, current), presentObject(ctx, next), options);
  }
  return next;
}

function commitStaged(
  ctx: RequestContext,
  current: JsonObject,
  next: JsonObject,
  storable?: JsonObject,
): Reply {
  const { core, type } = ctx;
  const sub = ctx.info.subresource;
  const stored = normalizeObjectMeta(storable ?? toStorage(ctx, next));
  const result = commitUpdate(core, type, current, stored, isDryRun(ctx));
  rememberWritten(ctx, result.object, next);
  if (!result.deleted && result.changed && !isDryRun(ctx)) afterKindWrite(core, type, result.object);
  if (sub === 'scale') return { code: 200, body: scaleOf(ctx, result.object) };
  return { code: 200, body: presentObject(ctx, result.object) };
}
