import { randomUUID } from 'node:crypto';
import { normalizeObjectMeta, recordUpdate } from '../algorithms.js';
import { namespacePhase } from '../core.js';
import type { Reply } from '../http-io.js';
import { formatTime, metadataOf, stringAt, type JsonObject } from '../json.js';
import { afterKindWrite, isCrdType, isNamespaceType, prepareKind } from '../kind-hooks.js';
import { typeKey } from '../resource-type.js';
import { ApiError, alreadyExists, failureStatus, forbidden, methodNotAllowed, notFound } from '../status.js';
import {
  admitSchema,
  checkBuiltInDecoding,
  checkNamespace,
  checkTypeMeta,
  metaCausesOf,
  reportBodyUnknownFields,
  validateMeta,
} from './admission.js';
import { presentObject, toStorage } from './presentation.js';
import { isDryRun, kindRefOf, managerOf, resetFieldsOf, type RequestContext } from './request-context.js';
import { parseObjectBody, typeMetaMismatch } from './decode-errors.js';
import { requestAdmission } from '../webhooks/request-admission.js';
import { convertsOnWrite, rememberWritten, toStorageVersion } from '../webhooks/request-conversion.js';

const GENERATE_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
const GENERATE_ATTEMPTS = 8;

function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++)
    suffix += GENERATE_CHARS[Math.floor(Math.random() * GENERATE_CHARS.length)] ?? 'x';
  return prefix.slice(0, 58) + suffix;
}

/** POST to a collection. */
export function handleCreate(ctx: RequestContext): Reply | Promise<Reply> {
  if (!ctx.type.builtin && ctx.info.subresource !== undefined) {
    // apiextensions-apiserver's handler: NewMethodNotSupported for a POST to a subresource.
    throw new ApiError(
      failureStatus(
        405,
        'MethodNotAllowed',
        `create is not supported on resources of kind "${ctx.type.resource}.${ctx.type.group}"`,
        { group: ctx.type.group, kind: ctx.type.resource },
      ),
    );
  }
  // A POST to a custom resource's named path is a create in its collection (the name in the path is not
  // looked at), as apiextensions-apiserver routes it; built-in kinds have no such route.
  if (ctx.type.builtin && (ctx.info.subresource !== undefined || ctx.info.name !== undefined))
    throw methodNotAllowed();
  if (ctx.type.namespaced && ctx.info.namespace === undefined) {
    throw methodNotAllowed(`${ctx.type.resource} must be created in a namespace`);
  }
  const obj = parseObjectBody(ctx);
  // kube's decoder fails on a foreign apiVersion/kind before it looks at any field.
  const mismatch = typeMetaMismatch(ctx, obj);
  if (mismatch !== undefined) throw mismatch;
  checkBuiltInDecoding(ctx, obj);
  reportBodyUnknownFields(ctx, obj);
  checkTypeMeta(ctx, obj);
  checkNamespace(ctx, obj);
  return createObject(ctx, obj, { managedFieldsSet: false });
}

/**
 * The create path shared by POST and server-side apply of a missing object. Synchronous unless admission
 * webhooks are configured; then mutating webhooks see the decoded and defaulted object, validation runs
 * on what they left, and validating webhooks see the object as it would be stored.
 */
export function createObject(
  ctx: RequestContext,
  input: JsonObject,
  opts: { managedFieldsSet: boolean },
): Reply | Promise<Reply> {
  const obj = prepareCreate(ctx, input, opts);
  const admission = requestAdmission(ctx, 'CREATE');
  if (admission === undefined && !convertsOnWrite(ctx)) {
    return commitCreate(ctx, stageCreate(ctx, admitCreate(ctx, obj), opts));
  }
  return (async () => {
    const defaulted = admitSchema(ctx, obj, undefined, { validate: false });
    const mutated = (await admission?.mutate(defaulted)) ?? defaulted;
    const staged = stageCreate(ctx, admitCreate(ctx, mutated), opts);
    await admission?.validate(staged.object);
    if (convertsOnWrite(ctx))
      staged.storable = normalizeObjectMeta(await toStorageVersion(ctx, staged.object));
    return commitCreate(ctx, staged);
  })();
}

/** Schema admission of a create; kube validates metadata and the rest of the object together: one 422 names both. */
function admitCreate(ctx: RequestContext, obj: JsonObject): JsonObject {
  return admitSchema(ctx, obj, undefined, { metaCauses: metaCausesOf(ctx, obj, 'create') });
}

/** Checks before admission: no resourceVersion, a name, a live namespace; strips server-set fields. */
function prepareCreate(
  ctx: RequestContext,
  input: JsonObject,
  opts: { managedFieldsSet: boolean },
): JsonObject {
  const { core, type } = ctx;
  const obj = input;
  const meta = metadataOf(obj);
  obj.metadata = meta;
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
    throw new ApiError(
      failureStatus(500, 'InternalError', 'resourceVersion should not be set on objects to be created'),
    );
  }
  if (type.namespaced) {
    const ns = ctx.info.namespace ?? '';
    const phase = namespacePhase(core, ns);
    if (phase === 'missing') throw notFound({ group: '', resource: 'namespaces' }, ns);
    if (phase === 'terminating') {
      const name = stringAt(meta, 'name') ?? '';
      throw forbidden(
        `${type.resource} "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
        {
          name,
          kind: type.resource,
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${ns} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      );
    }
  }
  for (const field of [
    'uid',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'generation',
    'selfLink',
  ]) {
    Reflect.deleteProperty(meta, field);
  }
  if (!opts.managedFieldsSet) delete meta.managedFields;
  if (type.statusSubresource && !isNamespaceType(type) && !isCrdType(type)) delete obj.status;
  if (type.namespaced) meta.namespace = ctx.info.namespace;
  return obj;
}

interface StagedCreate {
  /** In the request's version, as validating webhooks see it. */
  object: JsonObject;
  /** In the storage version. */
  storable: JsonObject;
}

/** After admission: kind rules, the name (generateName), ObjectMeta checks, uid, timestamps, managedFields. */
function stageCreate(
  ctx: RequestContext,
  admitted: JsonObject,
  opts: { managedFieldsSet: boolean },
): StagedCreate {
  const { core, type } = ctx;
  let obj = admitted;
  const finalMeta = metadataOf(obj);
  const generate = stringAt(finalMeta, 'generateName');
  // kube validates metadata and the kind's fields together: one 422 names both.
  const kindWarnings = prepareKind(core, type, obj, undefined, metaCausesOf(ctx, obj, 'create'));
  const now = core.clock();
  const usesGenerate = (finalMeta.name === undefined || finalMeta.name === '') && generate !== undefined;
  for (let attempt = 1; ; attempt++) {
    if (usesGenerate) finalMeta.name = generateName(generate);
    const name = stringAt(finalMeta, 'name') ?? '';
    const existing = core.store.get(typeKey(type), ctx.info.namespace, name);
    if (!existing) break;
    if (!usesGenerate || attempt >= GENERATE_ATTEMPTS) {
      throw alreadyExists(type, name, stringAt(metadataOf(existing), 'deletionTimestamp') !== undefined);
    }
  }
  validateMeta(ctx, obj, 'create');
  ctx.warnings.push(...kindWarnings);
  finalMeta.uid = randomUUID();
  finalMeta.creationTimestamp = formatTime(now);
  if (type.tracksGeneration) finalMeta.generation = 1;
  if (!opts.managedFieldsSet) {
    obj = recordUpdate(undefined, obj, {
      manager: managerOf(ctx),
      now: formatTime(now),
      apiVersion: String(obj.apiVersion),
      kind: kindRefOf(ctx),
      resetFields: resetFieldsOf(ctx),
    });
  }
  return { object: obj, storable: normalizeObjectMeta(toStorage(ctx, obj)) };
}

function commitCreate(ctx: RequestContext, staged: StagedCreate): Reply {
  const { core, type } = ctx;
  const storable = staged.storable;
  const name = stringAt(metadataOf(storable), 'name') ?? '';
  const existing = core.store.get(typeKey(type), ctx.info.namespace, name);
  if (existing)
    throw alreadyExists(type, name, stringAt(metadataOf(existing), 'deletionTimestamp') !== undefined);
  if (isDryRun(ctx)) {
    rememberWritten(ctx, storable, staged.object);
    return { code: 201, body: presentObject(ctx, storable) };
  }
  const stored = core.store.create(typeKey(type), storable);
  rememberWritten(ctx, stored, staged.object);
  afterKindWrite(core, type, stored);
  if (Array.isArray(metadataOf(stored).ownerReferences)) core.kick();
  return { code: 201, body: presentObject(ctx, stored) };
}
