import type { ApiServerCore } from './core.js';
import { deepEqual, formatTime, metadataOf, stringAt, stringsAt, type JsonObject } from './json.js';
import { typeKey, type ResourceType } from './resource-type.js';

/** How dependents are treated when their owner is deleted. */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** Result of a write that may have completed a deletion. */
export interface WriteResult {
  object: JsonObject;
  deleted: boolean;
  changed: boolean;
}

function isNamespace(type: ResourceType): boolean {
  return type.group === '' && type.resource === 'namespaces';
}

/**
 * Stores an update of an existing object. An update that leaves a marked object with no finalizers
 * deletes it instead (one DELETED event carrying the last stored state). A no-op write stores nothing.
 */
export function commitUpdate(
  core: ApiServerCore,
  type: ResourceType,
  previous: JsonObject,
  next: JsonObject,
  dryRun: boolean,
): WriteResult {
  const meta = metadataOf(next);
  const marked = stringAt(meta, 'deletionTimestamp') !== undefined;
  if (marked && stringsAt(meta, 'finalizers').length === 0 && !isNamespace(type)) {
    if (!dryRun) {
      core.store.remove(typeKey(type), previous);
      core.kick();
    }
    return { object: next, deleted: true, changed: true };
  }
  // A write that changes nothing but managedFields timestamps is no write (kube's
  // IgnoreManagedFieldsTimestampsTransformer); any other managedFields change is one.
  const untimed = (entries: unknown): unknown =>
    Array.isArray(entries)
      ? entries.map((e: unknown) => {
          if (typeof e !== 'object' || e === null) return e;
          const { time: _time, ...rest } = e as JsonObject;
          return rest;
        })
      : entries;
  const comparable = (o: JsonObject): JsonObject => ({
    ...o,
    metadata: {
      ...metadataOf(o),
      resourceVersion: undefined,
      managedFields: untimed(metadataOf(o).managedFields),
    },
  });
  if (deepEqual(comparable(previous), comparable(next)))
    return { object: previous, deleted: false, changed: false };
  if (dryRun) {
    return {
      object: { ...next, metadata: { ...meta, resourceVersion: metadataOf(previous).resourceVersion } },
      deleted: false,
      changed: true,
    };
  }
  const stored = core.store.update(typeKey(type), next, previous);
  if (marked || Array.isArray(meta.ownerReferences)) core.kick();
  return { object: stored, deleted: false, changed: true };
}

/** Default grace period of a Pod without `spec.terminationGracePeriodSeconds` (the Pod default). */
export const DEFAULT_POD_GRACE_PERIOD_SECONDS = 30;

function isPod(type: ResourceType): boolean {
  return type.group === '' && type.resource === 'pods';
}

/**
 * The grace period a Pod's deletion gets, as kube's pod strategy decides it (pkg/registry/core/pod/
 * strategy.go CheckGracefulDelete): the request's `gracePeriodSeconds`, else the Pod's
 * `terminationGracePeriodSeconds` (default 30); 0 for a Pod bound to no node or already finished.
 */
export function podGracePeriod(pod: JsonObject, requested: number | undefined): number {
  const spec = (pod.spec ?? {}) as JsonObject;
  const status = (pod.status ?? {}) as JsonObject;
  if (typeof spec.nodeName !== 'string' || spec.nodeName === '') return 0;
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return 0;
  if (requested !== undefined) return Math.max(0, requested);
  const own = spec.terminationGracePeriodSeconds;
  return typeof own === 'number' ? Math.max(0, own) : DEFAULT_POD_GRACE_PERIOD_SECONDS;
}

/**
 * Deletes an object as kube-apiserver does: immediately when nothing holds it, otherwise by setting
 * deletionTimestamp (MODIFIED) and leaving the rest to finalizers and the garbage collector. A Pod bound
 * to a node is deleted gracefully: `deletionTimestamp` = now + grace period and
 * `deletionGracePeriodSeconds` set, and it stays until the grace period ends (the kubelet's part, which
 * the background controllers play) or a delete with a shorter grace period comes.
 */
export function deleteObject(
  core: ApiServerCore,
  type: ResourceType,
  current: JsonObject,
  policy: PropagationPolicy | undefined,
  dryRun: boolean,
  gracePeriodSeconds?: number,
): WriteResult {
  const meta = metadataOf(current);
  if (isPod(type)) {
    const grace = podGracePeriod(current, gracePeriodSeconds);
    const marked = stringAt(meta, 'deletionTimestamp') !== undefined;
    const currentGrace =
      typeof meta.deletionGracePeriodSeconds === 'number' ? meta.deletionGracePeriodSeconds : 0;
    // A first graceful delete, or one that shortens the grace period of an earlier one (rest/delete.go
    // BeforeDelete): the Pod is marked, not removed.
    if (grace > 0 && (!marked || grace < currentGrace)) {
      const now = core.clock().getTime();
      const due = Math.min(
        now + grace * 1000,
        marked ? Date.parse(stringAt(meta, 'deletionTimestamp') ?? '') || Infinity : Infinity,
      );
      const nextMeta: JsonObject = {
        ...meta,
        deletionTimestamp: formatTime(new Date(due)),
        deletionGracePeriodSeconds: grace,
      };
      const wanted = [...stringsAt(meta, 'finalizers')];
      if (policy === 'Foreground' && !wanted.includes(FOREGROUND_FINALIZER))
        wanted.push(FOREGROUND_FINALIZER);
      if (policy === 'Orphan' && !wanted.includes(ORPHAN_FINALIZER)) wanted.push(ORPHAN_FINALIZER);
      if (wanted.length > 0) nextMeta.finalizers = wanted;
      const next: JsonObject = { ...current, metadata: nextMeta };
      if (dryRun) return { object: next, deleted: false, changed: true };
      const stored = core.store.update(typeKey(type), next, current);
      core.kick();
      return { object: stored, deleted: false, changed: true };
    }
    if (marked && grace > 0) return { object: current, deleted: false, changed: false };
  }
  const finalizers = stringsAt(meta, 'finalizers');
  const wanted = [...finalizers];
  if (policy === 'Foreground' && !wanted.includes(FOREGROUND_FINALIZER)) wanted.push(FOREGROUND_FINALIZER);
  if (policy === 'Orphan' && !wanted.includes(ORPHAN_FINALIZER)) wanted.push(ORPHAN_FINALIZER);
  if (type.group === 'apiextensions.k8s.io' && type.resource === 'customresourcedefinitions') {
    if (!wanted.includes(CRD_CLEANUP_FINALIZER)) wanted.push(CRD_CLEANUP_FINALIZER);
  }
  const alreadyMarked = stringAt(meta, 'deletionTimestamp') !== undefined;
  if (wanted.length === 0 && !isNamespace(type)) {
    if (dryRun) return { object: current, deleted: true, changed: true };
    const last = core.store.remove(typeKey(type), current);
    core.kick();
    return { object: last, deleted: true, changed: true };
  }
  if (alreadyMarked && wanted.length === finalizers.length)
    return { object: current, deleted: false, changed: false };
  const nextMeta: JsonObject = { ...meta, finalizers: wanted };
  if (wanted.length === 0) delete nextMeta.finalizers;
  if (!alreadyMarked) {
    nextMeta.deletionTimestamp = formatTime(core.clock());
    nextMeta.deletionGracePeriodSeconds = 0;
    const generation = meta.generation;
    if (typeof generation === 'number' && generation > 0) nextMeta.generation = generation + 1;
  }
  const next: JsonObject = { ...current, metadata: nextMeta };
  if (isNamespace(type))
    next.status = { ...(current.status as JsonObject | undefined), phase: 'Terminating' };
  if (dryRun) return { object: next, deleted: false, changed: true };
  const stored = core.store.update(typeKey(type), next, current);
  core.kick();
  return { object: stored, deleted: false, changed: true };
}
