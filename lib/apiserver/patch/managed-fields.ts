import type { FieldCause } from '../field-cause.js';
import {
  fieldSetOf,
  formatPath,
  fromFieldsV1,
  isUnder,
  parsePathKey,
  removeAtPath,
  toFieldsV1,
  valueAtPath,
  type FieldSet,
  type ItemIndexCache,
} from './field-set.js';
import type { KindRef } from './kind-ref.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import { PatchError } from './patch-error.js';
import { cloneJson, deleteKey, isJsonObject, jsonEqual, type JsonObject } from './json-value.js';
import { normalizeObjectMeta } from '../validation/normalize-object-meta.js';

export interface ApplyOptions {
  /** Name of the applying manager (the fieldManager query parameter); required by the server. */
  fieldManager: string;
  /** force=true: take ownership of conflicting fields instead of reporting conflicts. */
  force: boolean;
  /** Timestamp (RFC 3339, second precision) recorded in the managedFields entry. */
  now: string;
  /** apiVersion recorded in the managedFields entry. */
  apiVersion: string;
  /** Subresource the apply targets ('status', 'scale'); default none (the main resource). */
  subresource?: string;
  /** Kind of the object: built-in kinds merge lists by their merge keys; other lists are atomic. */
  kind?: KindRef;
}

export interface RecordUpdateOptions {
  /** Field manager of the write (fieldManager query parameter, else derived from the user agent). */
  manager: string;
  /** Timestamp (RFC 3339, second precision) recorded when the manager's entry changes. */
  now: string;
  /** apiVersion recorded in the entry. */
  apiVersion: string;
  /** Subresource written ('status', 'scale'); default none. */
  subresource?: string;
  /** Kind of the object (list merge keys); default: custom-resource rules. */
  kind?: KindRef;
}

export interface ApplyResult {
  object: Record<string, unknown>;
  /** Non-empty → answer 409 Conflict with these causes; `object` is then the unchanged live object. */
  conflicts: FieldCause[];
}

/** A kind whose lists are all atomic except metadata's (the custom-resource rules). */
const UNSTRUCTURED: KindRef = { group: 'unstructured.invalid', version: 'v1', kind: 'Object' };

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time: string;
  subresource: string;
  set: FieldSet;
}

function readEntries(obj: Record<string, unknown> | undefined): Entry[] {
  const metadata = isJsonObject(obj?.metadata) ? obj.metadata : {};
  const raw = Array.isArray(metadata.managedFields) ? metadata.managedFields : [];
  return raw.filter(isJsonObject).map((e) => ({
    manager: typeof e.manager === 'string' ? e.manager : '',
    operation: typeof e.operation === 'string' ? e.operation : 'Update',
    apiVersion: typeof e.apiVersion === 'string' ? e.apiVersion : '',
    time: typeof e.time === 'string' ? e.time : '',
    subresource: typeof e.subresource === 'string' ? e.subresource : '',
    set: fromFieldsV1(e.fieldsV1),
  }));
}

function writeEntries(obj: Record<string, unknown>, entries: Entry[]): Record<string, unknown> {
  const metadata: JsonObject = isJsonObject(obj.metadata) ? obj.metadata : {};
  obj.metadata = metadata;
  const kept = entries.filter((e) => e.set.size > 0);
  if (kept.length === 0) {
    deleteKey(metadata, 'managedFields');
    return obj;
  }
  metadata.managedFields = kept.map((e) => ({
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    time: e.time,
    fieldsType: 'FieldsV1',
    fieldsV1: toFieldsV1(e.set),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  }));
  return obj;
}

function withoutManagedFields(obj: Record<string, unknown>): Record<string, unknown> {
  const copy = cloneJson(obj);
  if (isJsonObject(copy.metadata)) deleteKey(copy.metadata, 'managedFields');
  return copy;
}

function findEntry(
  entries: Entry[],
  manager: string,
  operation: string,
  subresource: string,
): Entry | undefined {
  return entries.find(
    (e) => e.manager === manager && e.operation === operation && e.subresource === subresource,
  );
}

/** `.`-items and set values only record presence; they never conflict on their value. */
function isPresenceOnly(path: string[]): boolean {
  const last = path[path.length - 1] ?? '';
  return last === '.' || last.startsWith('v:');
}

/**
 * Server-side apply (application/apply-patch+yaml): merges `applied` into `live` (or creates it), detects
 * conflicts with fields other managers own with a different value, removes fields this manager applied
 * before and omits now (unless someone else owns them), and records an `Apply` managedFields entry.
 * With `force`, conflicting fields change owner instead. An applied object carrying managedFields is
 * rejected (PatchError 400), as kube does.
 */
export function serverSideApply(
  live: Record<string, unknown> | undefined,
  applied: Record<string, unknown>,
  options: ApplyOptions,
): ApplyResult {
  const appliedMeta = isJsonObject(applied.metadata) ? applied.metadata : {};
  if (appliedMeta.managedFields !== undefined) {
    throw new PatchError('metadata.managedFields must be nil', 400, 'BadRequest');
  }
  const kind = options.kind ?? UNSTRUCTURED;
  const subresource = options.subresource ?? '';
  const intent = cloneJson(applied);
  const newSet = fieldSetOf(intent, kind);
  const entries = readEntries(live);
  const mine = findEntry(entries, options.fieldManager, 'Apply', subresource);
  const others = entries.filter((e) => e !== mine);

  const conflicts: { entry: Entry; key: string }[] = [];
  if (live !== undefined) {
    for (const entry of others) {
      if (entry.manager === options.fieldManager) continue;
      for (const key of newSet) {
        if (!entry.set.has(key)) continue;
        const path = parsePathKey(key);
        if (isPresenceOnly(path)) continue;
        if (!jsonEqual(valueAtPath(intent, path), valueAtPath(live, path))) conflicts.push({ entry, key });
      }
    }
  }
  if (conflicts.length > 0 && !options.force) {
    return {
      object: cloneJson(live ?? {}),
      conflicts: conflicts.map(({ entry, key }) => conflictCause(entry, key)),
    };
  }
  for (const { entry, key } of conflicts) entry.set.delete(key);

  const merged = (
    live === undefined ? intent : applyStrategicMergePatch(withoutManagedFields(live), intent, kind, 'apply')
  ) as Record<string, unknown>;
  // Fields this manager applied before and omits now go away, unless another manager still owns them
  // (or something beneath them) or the new intent reaches below them.
  const keep = [...others.flatMap((e) => [...e.set]), ...newSet].map(parsePathKey);
  for (const key of mine?.set ?? []) {
    if (newSet.has(key)) continue;
    const path = parsePathKey(key);
    const node = path[path.length - 1] === '.' ? path.slice(0, -1) : path;
    if (keep.some((owned) => isUnder(owned, node))) continue;
    removeAtPath(merged, path);
  }
  normalizeObjectMeta(merged);
  // A no-op apply keeps the old timestamp (kube ignores timestamp-only managedFields changes), so the
  // server sees an unchanged object and does not bump resourceVersion.
  const unchanged =
    mine !== undefined &&
    live !== undefined &&
    sameSet(mine.set, newSet) &&
    mine.apiVersion === options.apiVersion &&
    jsonEqual(withoutManagedFields(merged), withoutManagedFields(live));
  const entry: Entry = {
    manager: options.fieldManager,
    operation: 'Apply',
    apiVersion: options.apiVersion,
    time: unchanged ? mine.time : options.now,
    subresource,
    set: newSet,
  };
  const nextEntries = mine ? entries.map((e) => (e === mine ? entry : e)) : [...entries, entry];
  return { object: writeEntries(merged, nextEntries), conflicts: [] };
}

function sameSet(a: FieldSet, b: FieldSet): boolean {
  return a.size === b.size && [...a].every((key) => b.has(key));
}

function conflictCause(entry: Entry, key: string): FieldCause {
  const field = formatPath(parsePathKey(key));
  const using = entry.operation === 'Update' && entry.apiVersion ? ` using ${entry.apiVersion}` : '';
  return {
    reason: 'FieldManagerConflict',
    // As kube-apiserver: the cause names the manager; the field is the cause's `field` (the Status message
    // joins both).
    message: `conflict with "${entry.manager}"${using}`,
    field,
  };
}

/** `managedFields: [{}]` in a non-apply write is kube's way of clearing every entry. */
function isResetRequest(value: unknown): boolean {
  return (
    Array.isArray(value) && value.length === 1 && isJsonObject(value[0]) && Object.keys(value[0]).length === 0
  );
}

/**
 * For non-apply writes (create, update, patch): gives `manager` an `Update` entry owning the fields the
 * write set or changed, takes those fields away from other managers, and drops ownership of fields that
 * no longer exist. A non-empty managedFields list the client sent is taken as the starting point; an
 * empty list keeps the stored entries; `managedFields: [{}]` clears them all. Returns a copy of `after`
 * with the new managedFields.
 */
export function recordUpdate(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
  options: RecordUpdateOptions,
): Record<string, unknown> {
  const kind = options.kind ?? UNSTRUCTURED;
  const result = cloneJson(after);
  const sent = isJsonObject(after.metadata) ? after.metadata.managedFields : undefined;
  if (isResetRequest(sent)) return writeEntries(result, []);
  const beforeEntries = readEntries(before);
  // An empty or malformed list does not reset ownership (kube protects against clients that strip it).
  const explicit = Array.isArray(sent) && sent.length > 0;
  const entries = explicit ? readEntries(after) : beforeEntries;
  const afterSet = fieldSetOf(after, kind);
  const lookups: ItemIndexCache = new WeakMap();
  const changed = new Set(
    [...afterSet].filter((key) => {
      if (before === undefined) return true;
      const path = parsePathKey(key);
      const old = valueAtPath(before, path, lookups);
      return (
        old === undefined || (!isPresenceOnly(path) && !jsonEqual(old, valueAtPath(after, path, lookups)))
      );
    }),
  );
  for (const entry of entries) {
    for (const key of entry.set) if (!afterSet.has(key) || changed.has(key)) entry.set.delete(key);
  }
  const subresource = options.subresource ?? '';
  const mine = findEntry(entries, options.manager, 'Update', subresource);
  if (mine) {
    for (const key of changed) mine.set.add(key);
    if (changed.size > 0) Object.assign(mine, { time: options.now, apiVersion: options.apiVersion });
  } else if (changed.size > 0) {
    entries.push({
      manager: options.manager,
      operation: 'Update',
      apiVersion: options.apiVersion,
      time: options.now,
      subresource,
      set: changed,
    });
  }
  return writeEntries(result, entries);
}
