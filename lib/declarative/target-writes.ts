import type { KubernetesObject } from '@kubernetes/client-node';
import { jsonEqual } from './expression-values.js';

type Doc = Record<string, unknown>;

/** What a target needs done for one output. Pure data: the operator carries it out through the client. */
export type TargetWrite =
  | { verb: 'none' }
  | { verb: 'create'; object: KubernetesObject; status?: Doc }
  | { verb: 'replace'; object: KubernetesObject; status?: Doc }
  | { verb: 'delete' }
  | { verb: 'patch'; patch?: Doc; statusPatch?: Doc };

/** How the target kind stores its status. */
export interface TargetKindInfo {
  /** Whether `status` is written through the `/status` subresource (and ignored by the main write). */
  statusSubresource: boolean;
}

const IDENTITY = new Set(['apiVersion', 'kind', 'metadata']);

function isObject(v: unknown): v is Doc {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function record(v: unknown): Record<string, string> {
  return isObject(v) ? (v as Record<string, string>) : {};
}

/** Whether every field of `part` is in `whole` with the same value (objects compared field by field). */
export function containsFields(whole: unknown, part: unknown): boolean {
  if (!isObject(part)) return jsonEqual(whole, part);
  if (!isObject(whole)) return false;
  return Object.entries(part).every(([k, v]) =>
    v === null ? whole[k] === undefined || whole[k] === null : containsFields(whole[k], v),
  );
}

/**
 * Updater: create the object, or update it so every field but metadata equals the output (fields the
 * output lacks are removed); labels and annotations are merged into the existing ones and never removed.
 * `desired === undefined` means the output is gone: delete (a missing object needs nothing). No write
 * when the object already matches, so a controller reading its own target does not loop.
 */
export function updaterWrite(
  existing: KubernetesObject | undefined,
  desired: KubernetesObject | undefined,
  info: TargetKindInfo,
): TargetWrite {
  if (desired === undefined) return existing === undefined ? { verb: 'none' } : { verb: 'delete' };
  const d = desired as unknown as Doc;
  const body: Doc = {};
  for (const [k, v] of Object.entries(d)) if (!IDENTITY.has(k) && v !== undefined) body[k] = v;
  const status = info.statusSubresource && isObject(body['status']) ? body['status'] : undefined;
  if (info.statusSubresource) delete body['status'];
  const md = record(d['metadata']) as unknown as Doc;
  const labels = record(md['labels']);
  const annotations = record(md['annotations']);
  if (existing === undefined) {
    const metadata: Doc = { name: md['name'] };
    if (md['namespace'] !== undefined) metadata['namespace'] = md['namespace'];
    if (Object.keys(labels).length > 0) metadata['labels'] = { ...labels };
    if (Object.keys(annotations).length > 0) metadata['annotations'] = { ...annotations };
    const object = {
      apiVersion: desired.apiVersion,
      kind: desired.kind,
      metadata,
      ...structuredClone(body),
    } as KubernetesObject;
    return status === undefined
      ? { verb: 'create', object }
      : { verb: 'create', object, status: structuredClone(status) };
  }
  const e = existing as unknown as Doc;
  const emd = record(e['metadata']) as unknown as Doc;
  const current: Doc = {};
  for (const [k, v] of Object.entries(e))
    if (!IDENTITY.has(k) && !(info.statusSubresource && k === 'status')) current[k] = v;
  const mergedLabels = { ...record(emd['labels']), ...labels };
  const mergedAnnotations = { ...record(emd['annotations']), ...annotations };
  const metaSame =
    jsonEqual(mergedLabels, record(emd['labels'])) &&
    jsonEqual(mergedAnnotations, record(emd['annotations']));
  const bodySame = jsonEqual(current, body);
  const statusSame = status === undefined || jsonEqual(e['status'], status);
  if (metaSame && bodySame && statusSame) return { verb: 'none' };
  const metadata: Doc = { ...structuredClone(emd) };
  if (Object.keys(mergedLabels).length > 0) metadata['labels'] = mergedLabels;
  if (Object.keys(mergedAnnotations).length > 0) metadata['annotations'] = mergedAnnotations;
  const object = {
    apiVersion: desired.apiVersion,
    kind: desired.kind,
    metadata,
    ...structuredClone(body),
  } as KubernetesObject;
  if (metaSame && bodySame) return { verb: 'patch', statusPatch: { status: structuredClone(status) } };
  return status === undefined || statusSame
    ? { verb: 'replace', object }
    : { verb: 'replace', object, status: structuredClone(status) };
}

/** The output as a merge patch: every field it emits, without the object's identity (apiVersion, kind, name, namespace). */
export function emittedFields(desired: KubernetesObject): Doc {
  const patch: Doc = {};
  for (const [k, v] of Object.entries(desired as unknown as Doc)) {
    if (k === 'apiVersion' || k === 'kind' || v === undefined) continue;
    if (k === 'metadata' && isObject(v)) {
      const { name: _n, namespace: _ns, ...rest } = v;
      if (Object.keys(rest).length > 0) patch[k] = rest;
    } else patch[k] = v;
  }
  return patch;
}

/** A merge patch that removes every leaf of `fields` (a list counts as a leaf). */
export function nullingPatch(fields: Doc): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(fields)) out[k] = isObject(v) ? nullingPatch(v) : null;
  return out;
}

/** Leaves of `before` that `after` no longer has, as nulls (so a field the pipeline stopped emitting is removed). */
function droppedLeaves(before: Doc, after: Doc): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(before)) {
    if (!Object.hasOwn(after, k)) out[k] = isObject(v) ? nullingPatch(v) : null;
    else if (isObject(v) && isObject(after[k])) {
      const inner = droppedLeaves(v, after[k]);
      if (Object.keys(inner).length > 0) out[k] = inner;
    }
  }
  return out;
}

function merge(a: Doc, b: Doc): Doc {
  const out: Doc = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isObject(out[k]) && isObject(v) ? merge(out[k], v) : v;
  return out;
}

/**
 * Patcher: a JSON merge patch (RFC 7386) of exactly the fields the output emits onto an existing object;
 * fields emitted by the previous output (`previous`) and no longer emitted are nulled. `desired ===
 * undefined` (the output is gone) nulls exactly the fields `previous` emitted. The status part goes to the
 * status subresource when the kind has one. `existing === undefined`: nothing to delete; an update throws
 * (Patcher changes objects, it never creates them).
 */
export function patcherWrite(
  existing: KubernetesObject | undefined,
  desired: KubernetesObject | undefined,
  previous: KubernetesObject | undefined,
  info: TargetKindInfo,
): TargetWrite {
  const before = previous === undefined ? {} : emittedFields(previous);
  let patch: Doc;
  if (desired === undefined) {
    if (existing === undefined) return { verb: 'none' };
    patch = nullingPatch(before);
  } else {
    if (existing === undefined) {
      throw new Error(
        `Patcher target ${desired.kind ?? ''} ${desired.metadata?.namespace ?? ''}/${desired.metadata?.name ?? ''} does not exist; Patcher only changes existing objects (use type: Updater to create it)`,
      );
    }
    const now = emittedFields(desired);
    patch = merge(droppedLeaves(before, now), now);
  }
  if (containsFields(existing, patch)) return { verb: 'none' };
  if (!info.statusSubresource || !Object.hasOwn(patch, 'status')) return { verb: 'patch', patch };
  const { status, ...main } = patch;
  const statusPatch = containsFields(existing, { status }) ? undefined : { status };
  const mainPatch = Object.keys(main).length === 0 || containsFields(existing, main) ? undefined : main;
  return {
    verb: 'patch',
    ...(mainPatch === undefined ? {} : { patch: mainPatch }),
    ...(statusPatch === undefined ? {} : { statusPatch }),
  };
}
