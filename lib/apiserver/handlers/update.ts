import { cloneJson } from '../patch/json-value.js';
import { normalizeObjectMeta, recordScaleUpdate, recordUpdate } from '../algorithms.js';
import type { Reply } from '../http-io.js';
import {
  deepEqual,
  display,
  isJsonObject,
  formatTime,
  metadataOf,
  objectAt,
  stringAt,
  stringsAt,
  valueAtPath,
  type JsonObject,
} from '../json.js';
import { afterKindWrite, isNamespaceType, prepareKind } from '../kind-hooks.js';
import { checkBuiltInStatus } from '../builtin/built-in-rules.js';
import { commitUpdate } from '../object-lifecycle.js';
import { apiVersionOf, typeKey } from '../resource-type.js';
import { customResourceApplyError } from '../schema/apply-typed.js';
import { badRequest, conflict, invalid, methodNotAllowed, notFound, pathNotFound } from '../status.js';
import {
  admitSchema,
  checkBuiltInDecoding,
  checkName,
  checkNamespace,
  checkTypeMeta,
  metaCausesOf,
  reportBodyUnknownFields,
  validateMeta,
} from './admission.js';
import { presentObject, toStorage } from './presentation.js';
import { isDryRun, kindRefOf, managerOf, resetFieldsOf, type RequestContext } from './request-context.js';
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
  // kube: built-in collections have no PUT route (405); apiextensions-apiserver's handler serves the
  // collection path and refuses the missing name.
  if (ctx.info.name === undefined) {
    throw ctx.type.builtin ? methodNotAllowed() : badRequest('name must be provided');
  }
  const body = parseObjectBody(ctx);
  if (ctx.info.subresource !== 'scale') {
    // kube's decoder fails on a foreign apiVersion/kind before it looks at any field.
    const mismatch = typeMetaMismatch(ctx, body);
    if (mismatch !== undefined) throw mismatch;
    checkBuiltInDecoding(ctx, body);
    reportBodyUnknownFields(ctx, body);
  }
  // kube checks the body's name against the URL before looking the object up
  // (k8s.io/apiserver/pkg/endpoints/handlers/update.go), so a mismatch is a 400 even when it is absent,
  // and a body without a name is one too.
  if (ctx.info.subresource !== 'scale') {
    const named = metadataOf(body).name;
    if (named === undefined || named === '') {
      throw badRequest(
        `the name of the object (${ctx.info.name ?? ''} based on URL) was undeterminable: name must be provided`,
      );
    }
    checkName(ctx, body);
  }
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

/** What generation tracks: the object without metadata and type (a write through another version is no change). */
function withoutMeta(obj: JsonObject, dropStatus: boolean): JsonObject {
  const { metadata: _m, apiVersion: _v, kind: _k, ...rest } = obj;
  if (dropStatus) delete rest.status;
  return rest;
}

/**
 * The object kube's field manager compares with the stored one: the request's, before the strategy resets
 * what this endpoint may not change — the status sent to the main resource, the spec (and a Deployment's
 * labels) sent to the status subresource — so a field the request changes there still moves away from
 * the managers that owned it.
 */
function asRequested(ctx: RequestContext, next: JsonObject, candidate: JsonObject): JsonObject {
  const sub = ctx.info.subresource;
  if (sub === 'scale') {
    // The field manager compares Scale objects, where `spec.replicas: 0` is not encoded (omitempty): to it,
    // scaling to zero removes the field.
    const path = (ctx.type.scale?.specReplicasPath ?? '.spec.replicas').replace(/^\./, '').split('.');
    const requested = cloneJson(next);
    let parent: unknown = requested;
    for (const part of path.slice(0, -1)) parent = isJsonObject(parent) ? parent[part] : undefined;
    const last = path[path.length - 1] ?? '';
    if (isJsonObject(parent) && parent[last] === 0) Reflect.deleteProperty(parent, last);
    return requested;
  }
  if (!ctx.type.statusSubresource || isNamespaceType(ctx.type) || (sub !== undefined && sub !== 'status')) {
    return next;
  }
  const requested: JsonObject = { ...next, metadata: { ...metadataOf(next) } };
  const field = sub === 'status' ? 'spec' : 'status';
  if (candidate[field] === undefined) Reflect.deleteProperty(requested, field);
  else requested[field] = candidate[field];
  if (sub === 'status') {
    const labels = metadataOf(candidate).labels;
    if (labels === undefined) Reflect.deleteProperty(metadataOf(requested), 'labels');
    else metadataOf(requested).labels = labels;
  }
  return requested;
}

/** Whether `obj` converts to another served version of a custom resource and fits its schema. */
function fitsServedVersion(ctx: RequestContext, apiVersion: string, obj: JsonObject): boolean {
  if (ctx.type.builtin) return true;
  const version = ctx.type.versions.find((v) => apiVersionOf(ctx.type.group, v.name) === apiVersion);
  if (version?.schema === undefined) return true;
  return customResourceApplyError({ ...obj, apiVersion }, version.schema) === undefined;
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
      // The generic registry's check (Store.Update): the resource names the error, the version is 0.
      throw invalid({ group: type.group, kind: type.resource }, name, [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 0: must be specified for an update',
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
    next = admitSchema(ctx, next, presentObject(ctx, current), { statusWrite: true });
    if (type.builtin) {
      const causes = checkBuiltInStatus(type.group, type.kind, next, presentObject(ctx, current));
      if (causes.length > 0) throw invalid(type, name, causes);
    }
  } else if (sub === 'finalize') {
    const spec = objectAt(current, 'spec') ?? {};
    next = {
      ...current,
      metadata: { ...cm },
      spec: { ...spec, finalizers: stringsAt(objectAt(candidate, 'spec'), 'finalizers') },
    };
  } else if (sub === 'scale') {
    next = { ...candidate, metadata: { ...cm } };
    // A scale write is an update of the object: its schema, rules and the kind's validation apply.
    if (type.builtin) prepareKind(core, type, next, current);
    else
      next = admitSchema(ctx, presentObject(ctx, next), presentObject(ctx, current), { statusFrom: current });
    if (type.tracksGeneration && !deepEqual(withoutMeta(current, true), withoutMeta(next, true))) {
      metadataOf(next).generation = (typeof cm.generation === 'number' ? cm.generation : 0) + 1;
    }
  } else {
    const resetsStatus = type.statusSubresource && !isNamespaceType(type);
    const candidateMeta = { ...candMeta };
    for (const field of SERVER_MANAGED) {
      if (cm[field] === undefined) Reflect.deleteProperty(candidateMeta, field);
      else candidateMeta[field] = cm[field];
    }
    const candidateObject = { ...candidate, metadata: candidateMeta };
    // kube validates metadata and the rest of the object together: one 422 names both.
    const metaCauses = metaCausesOf(ctx, candidateObject, 'update', current);
    next = admitSchema(ctx, candidateObject, presentObject(ctx, current), {
      ...(resetsStatus ? { statusFrom: current } : {}),
      metaCauses,
    });
    const meta = metadataOf(next);
    if (resetsStatus) {
      if (current.status === undefined) delete next.status;
      else next.status = current.status;
    }
    if (isNamespaceType(type)) next.status = current.status;
    ctx.warnings.push(...prepareKind(core, type, next, current, metaCauses));
    validateMeta(ctx, next, 'update', current);
    // A Deployment's generation also counts annotation changes (they are copied to its ReplicaSets).
    const annotationsChanged =
      type.group === 'apps' &&
      type.kind === 'Deployment' &&
      !deepEqual(cm.annotations ?? {}, meta.annotations ?? {});
    if (
      type.tracksGeneration &&
      (annotationsChanged ||
        !deepEqual(withoutMeta(current, type.statusSubresource), withoutMeta(next, type.statusSubresource)))
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
      resetFields: resetFieldsOf(ctx),
      fitsVersion: (apiVersion, obj) => fitsServedVersion(ctx, apiVersion, obj),
    };
    if (sub !== undefined) options.subresource = sub;
    const replicasPath = (type.scale?.specReplicasPath ?? '.spec.replicas').replace(/^\./, '').split('.');
    const recorded =
      sub === 'scale'
        ? recordScaleUpdate(presentObject(ctx, current), next, {
            manager: options.manager,
            replicasPath,
            before: valueAtPath(current, `.${replicasPath.join('.')}`),
            after: valueAtPath(next, `.${replicasPath.join('.')}`),
            apiVersion: options.apiVersion,
          })
        : recordUpdate(
            presentObject(ctx, current),
            presentObject(ctx, asRequested(ctx, next, candidate)),
            options,
          );
    next = { ...next, metadata: { ...metadataOf(next), managedFields: metadataOf(recorded).managedFields } };
    if (metadataOf(next).managedFields === undefined)
      Reflect.deleteProperty(metadataOf(next), 'managedFields');
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
