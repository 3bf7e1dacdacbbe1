import type { FieldCause } from '../field-cause.js';
import {
  appliedFieldSetOf,
  fieldSetOf,
  formatPath,
  fromFieldsV1,
  isUnder,
  keyOf,
  nodeSetOf,
  parsePathKey,
  pathKey,
  toFieldsV1,
  valueAtPath,
  type FieldPath,
  type FieldSet,
  type ItemIndexCache,
} from './field-set.js';
import type { KindRef } from './kind-ref.js';
import { goZeroValue, isAlwaysEncoded, isAtomicMap, isNamedField, listStrategyFor } from './list-strategy.js';
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
  /** Field paths (names from the root) the endpoint resets: never owned by the applier. */
  resetFields?: readonly (readonly string[])[];
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
  /** Field paths (names from the root) the endpoint resets: never owned by the writer. */
  resetFields?: readonly (readonly string[])[];
  /**
   * Whether the written object fits another served version's schema (custom resources: apiVersion →
   * check). When an entry of a version it does not fit exists, kube's field manager fails to compare in
   * that version and the write keeps no managedFields at all.
   */
  fitsVersion?: (apiVersion: string, obj: Record<string, unknown>) => boolean;
}

/** The keys with the declared fields above each (EnsureNamedFieldsAreMembers). */
function withNamedFields(keys: readonly string[], kind: KindRef): FieldSet {
  const out: FieldSet = new Set(keys);
  for (const key of keys) {
    const path = parsePathKey(key);
    for (let end = 1; end < path.length; end++) {
      const last = path[end - 1] ?? '';
      if (!last.startsWith('f:')) continue;
      const names = path
        .slice(0, end)
        .filter((e) => e.startsWith('f:'))
        .map((e) => e.slice(2));
      if (isNamedField(names, kind)) out.add(pathKey(path.slice(0, end)));
    }
  }
  return out;
}

/**
 * Removes the members `keys` from `obj` in place, as structured-merge-diff's removing walker does: a removed
 * member takes its subtree with it; a map or list left without entries by the removal becomes null.
 */
function removeMembers(obj: Record<string, unknown>, keys: readonly string[], kind: KindRef): void {
  const remove = new Set(keys);
  const prefixes = new Set<string>();
  for (const key of keys) {
    const path = parsePathKey(key);
    for (let end = 1; end < path.length; end++) prefixes.add(pathKey(path.slice(0, end)));
  }
  const walk = (value: unknown, path: FieldPath): unknown => {
    if (isJsonObject(value)) {
      for (const [k, child] of Object.entries(value)) {
        const at = [...path, `f:${k}`];
        const key = pathKey(at);
        if (remove.has(key)) deleteKey(value, k);
        else if (prefixes.has(key)) value[k] = walk(child, at);
      }
      return path.length > 0 && Object.keys(value).length === 0 ? null : value;
    }
    if (Array.isArray(value)) {
      const kept: unknown[] = [];
      const names = path.filter((e) => e.startsWith('f:')).map((e) => e.slice(2));
      const strategy = listStrategyFor(names, kind);
      for (const item of value) {
        const element =
          strategy.type === 'map'
            ? `k:${JSON.stringify(isJsonObject(item) ? keyOf(item, strategy.keys, strategy.defaults) : item)}`
            : `v:${JSON.stringify(item)}`;
        const at = [...path, element];
        const key = pathKey(at);
        if (remove.has(key)) continue;
        kept.push(prefixes.has(key) ? walk(item, at) : item);
      }
      return kept.length === 0 ? null : kept;
    }
    return value;
  };
  walk(obj, []);
}

/** Drops the keys at or under a reset field (structured-merge-diff's exclude filter). */
function withoutReset(set: FieldSet, reset: readonly (readonly string[])[] | undefined): FieldSet {
  if (reset === undefined || reset.length === 0) return set;
  const prefixes = reset.map((names) => names.map((n) => `f:${n}`));
  return new Set([...set].filter((key) => !prefixes.some((p) => isUnder(parsePathKey(key), p))));
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

/**
 * structured-merge-diff's Compare of two versions of an object: `changed` are the nodes added (absent
 * before; before a create, what the kind's zero object lacks) and the leaves modified (a scalar, an empty or
 * atomic map or list whose value differs); `removed` tells whether a key was there before and is gone.
 */
function compareObjects(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
  kind: KindRef,
): { changed: FieldSet; removed: (key: string) => boolean } {
  const leaves = fieldSetOf(after, kind);
  const members = new Set([...leaves, ...nodeSetOf(after, kind)]);
  const lookups: ItemIndexCache = new WeakMap();
  const changed: FieldSet = new Set();
  for (const key of members) {
    const path = parsePathKey(key);
    if (!existedBefore(before, path, kind, lookups)) changed.add(key);
    else if (leaves.has(key) && !isPresenceOnly(path)) {
      // Before a create, a field Go always encodes holds its zero value.
      const old =
        before === undefined
          ? goZeroValue(
              path.filter((e) => e.startsWith('f:')).map((e) => e.slice(2)),
              kind,
            )
          : valueAtPath(before, path, lookups);
      const now = valueAtPath(after, path, lookups);
      // An emptied map or list is no leaf to structured-merge-diff (only one empty on both sides is):
      // its items were removed, and nobody takes the node.
      if (
        isEmptyContainer(now) &&
        isContainer(old) &&
        !isEmptyContainer(old) &&
        !isAtomicNode(path, now, kind)
      ) {
        continue;
      }
      if (!jsonEqual(old, now)) changed.add(key);
    }
  }
  const removed = (key: string): boolean =>
    !members.has(key) &&
    before !== undefined &&
    valueAtPath(before, parsePathKey(key), lookups) !== undefined;
  return { changed, removed };
}

/** kube's identity of an entry (BuildManagerIdentifier): manager, operation, subresource, and for updates apiVersion. */
function identityOf(e: Pick<Entry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([e.manager, e.operation, e.operation === 'Apply' ? '' : e.apiVersion, e.subresource]);
}

/**
 * The entries of an object. Entries with the same identity (the scale subresource can leave two) collapse
 * into the last one, as kube's DecodeManagedFields keeps one entry per identity.
 */
function readEntries(obj: Record<string, unknown> | undefined): Entry[] {
  const byIdentity = new Map<string, Entry>();
  for (const entry of rawEntries(obj)) {
    const id = identityOf(entry);
    byIdentity.delete(id);
    byIdentity.set(id, entry);
  }
  return [...byIdentity.values()];
}

/** Every managedFields entry of an object, as stored (no collapsing of identities). */
function rawEntries(obj: Record<string, unknown> | undefined): Entry[] {
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

/** What {@link recordScaleUpdate} takes. */
export interface ScaleUpdateOptions {
  /** The scale manager (fieldManager, else the user agent's product name). */
  manager: string;
  /** The object's field the Scale's spec.replicas maps to (names from the root). */
  replicasPath: readonly string[];
  /** The object's replicas before and after the write (undefined when absent). */
  before: unknown;
  after: unknown;
  /** The object's apiVersion of the request. */
  apiVersion: string;
}

/**
 * managedFields after a write to the scale subresource, as kube's ScaleHandler maps them: the object's
 * entries owning the replicas field become Scale entries, the Scale update runs (where `spec.replicas: 0`
 * is not encoded, so scaling to or from zero adds or removes the field), and the result maps back. Quirks
 * kept: nothing is tracked when no entry owns replicas; an Update entry keyed by version loses replicas in
 * the mapping and, when the write changed nothing, gets it back as a second, timeless entry of its own
 * identity (a later write keeps only one of the two); the scale manager's entry has no time.
 */
export function recordScaleUpdate(
  current: Record<string, unknown>,
  after: Record<string, unknown>,
  options: ScaleUpdateOptions,
): Record<string, unknown> {
  const result = cloneJson(after);
  const entries = rawEntries(current);
  const replicas = pathKey(options.replicasPath.map((name) => `f:${name}`));
  if (!entries.some((e) => e.set.has(replicas))) return writeEntries(result, entries);
  const scaled = (v: unknown): unknown => (v === 0 || v === undefined ? undefined : v);
  const changed = !jsonEqual(scaled(options.before), scaled(options.after));
  const added: Entry[] = [];
  for (const entry of entries) {
    if (!entry.set.has(replicas)) continue;
    if (entry.operation === 'Apply') {
      if (changed) entry.set.delete(replicas);
      continue;
    }
    entry.set.delete(replicas);
    if (!changed) {
      added.push({ ...entry, apiVersion: options.apiVersion, time: '', set: new Set([replicas]) });
    }
  }
  if (changed && scaled(options.after) !== undefined) {
    const writer = {
      manager: options.manager,
      operation: 'Update',
      apiVersion: options.apiVersion,
      subresource: 'scale',
    };
    const previous = added.findIndex((e) => identityOf(e) === identityOf(writer));
    if (previous >= 0) added.splice(previous, 1);
    added.push({ ...writer, time: '', set: new Set([replicas]) });
  }
  return writeEntries(result, [...entries, ...added]);
}

function writeEntries(obj: Record<string, unknown>, entries: Entry[]): Record<string, unknown> {
  const metadata: JsonObject = isJsonObject(obj.metadata) ? obj.metadata : {};
  obj.metadata = metadata;
  const kept = sortEntries(entries.filter((e) => e.set.size > 0));
  if (kept.length === 0) {
    deleteKey(metadata, 'managedFields');
    return obj;
  }
  metadata.managedFields = kept.map((e) => ({
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    ...(e.time === '' ? {} : { time: e.time }),
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

/**
 * A manager's entry. Entries are told apart by manager, operation and subresource, and — for `Update`
 * entries — apiVersion too (BuildManagerIdentifier in k8s.io/apimachinery's managedfields): an update
 * through another version gets an entry of its own.
 */
function findEntry(
  entries: Entry[],
  manager: string,
  operation: string,
  subresource: string,
  apiVersion?: string,
): Entry | undefined {
  return entries.find(
    (e) =>
      e.manager === manager &&
      e.operation === operation &&
      e.subresource === subresource &&
      (apiVersion === undefined || e.apiVersion === apiVersion),
  );
}

/** kube's order of managedFields entries: operation, then time (to the second), manager, apiVersion, subresource. */
function sortKeyOf(e: Entry): string[] {
  return [
    e.operation,
    String(Date.parse(e.time) || 0).padStart(16, '0'),
    e.manager,
    e.apiVersion,
    e.subresource,
  ];
}

/** Entries in kube's order; each entry's sort key is built once, not per comparison. */
function sortEntries(entries: Entry[]): Entry[] {
  const keyed = entries.map((entry) => ({ entry, key: sortKeyOf(entry) }));
  keyed.sort((p, q) => compareKeys(p.key, q.key));
  return keyed.map((k) => k.entry);
}

function compareEntries(p: Entry, q: Entry): number {
  return compareKeys(sortKeyOf(p), sortKeyOf(q));
}

function compareKeys(p: string[], q: string[]): number {
  for (let i = 0; i < p.length; i++) {
    const a = p[i] ?? '';
    const b = q[i] ?? '';
    if (a !== b) return a < b ? -1 : 1;
  }
  return 0;
}

function isContainer(v: unknown): boolean {
  return Array.isArray(v) || isJsonObject(v);
}

function isEmptyContainer(v: unknown): boolean {
  return Array.isArray(v) ? v.length === 0 : isJsonObject(v) && Object.keys(v).length === 0;
}

/** Whether the map or list `value` at a field path is atomic (a leaf whatever it holds). */
function isAtomicNode(path: FieldPath, value: unknown, kind: KindRef): boolean {
  const names = path.filter((e) => e.startsWith('f:')).map((e) => e.slice(2));
  return Array.isArray(value) ? listStrategyFor(names, kind).type === 'atomic' : isAtomicMap(names, kind);
}

/**
 * The order structured-merge-diff iterates a set in: at each node its members (paths that end there) before
 * its children, each group sorted by path element — fields before keys before values, then by text.
 */
function comparePaths(a: FieldPath, b: FieldPath): number {
  const rank = (e: string): number =>
    e.startsWith('f:') ? 0 : e.startsWith('k:') ? 1 : e.startsWith('v:') ? 2 : 3;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x === y) continue;
    const xMember = a.length === i + 1;
    const yMember = b.length === i + 1;
    if (xMember !== yMember) return xMember ? -1 : 1;
    if (rank(x) !== rank(y)) return rank(x) - rank(y);
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** List items (keyed or set) only record presence; they never conflict on their value. */
function isPresenceOnly(path: string[]): boolean {
  const last = path[path.length - 1] ?? '';
  return last.startsWith('k:') || last.startsWith('v:');
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
  const appliedSet = appliedFieldSetOf(intent, kind);
  const newSet = withoutReset(appliedSet, options.resetFields);
  // An object nobody manages (its managedFields were cleared, or a write could not track them) is first
  // given to `before-first-apply`, an Update entry owning everything it holds, as kube's
  // skipNonAppliedManager records it in the applied version before the apply runs.
  const entries =
    live !== undefined && readEntries(live).length === 0
      ? readEntries(
          recordUpdate(undefined, withoutManagedFields(live), {
            manager: 'before-first-apply',
            now: options.now,
            apiVersion: options.apiVersion,
            kind,
            ...(subresource === '' ? {} : { subresource }),
            ...(options.resetFields === undefined ? {} : { resetFields: options.resetFields }),
          }),
        )
      : readEntries(live);
  const mine = findEntry(entries, options.fieldManager, 'Apply', subresource);
  const others = entries.filter((e) => e !== mine);

  const merged = (
    live === undefined ? intent : applyStrategicMergePatch(withoutManagedFields(live), intent, kind, 'apply')
  ) as Record<string, unknown>;
  // A conflict is a field another manager owns that the apply adds or changes (structured-merge-diff
  // compares the live object with the merged one: applying an empty map over a full one changes nothing,
  // while a map the live object lacks is added even when a manager owns it).
  const conflicts: { entry: Entry; key: string }[] = [];
  if (live !== undefined) {
    const { changed } = compareObjects(withoutManagedFields(live), merged, kind);
    // Every other entry counts, the same manager's Update entries included (entries are told apart by
    // manager, operation, subresource and version). The reset fields are left out only for managers of
    // the request's version (kube keys them by version), so another version's manager conflicts on them.
    for (const entry of others) {
      const reset = entry.apiVersion === options.apiVersion ? options.resetFields : undefined;
      for (const key of withoutReset(new Set([...entry.set].filter((k) => changed.has(k))), reset)) {
        conflicts.push({ entry, key });
      }
    }
  }
  if (conflicts.length > 0 && !options.force) {
    // By manager, then in field-set order, as structured-merge-diff iterates sets (kube's order of several
    // managers is Go map order).
    conflicts.sort(
      (a, b) => compareEntries(a.entry, b.entry) || comparePaths(parsePathKey(a.key), parsePathKey(b.key)),
    );
    return {
      object: cloneJson(live ?? {}),
      conflicts: conflicts.map(({ entry, key }) => conflictCause(entry, key)),
    };
  }
  for (const { entry, key } of conflicts) entry.set.delete(key);

  // Fields this manager applied before and omits now go away unless some manager owns them, the applier's
  // new configuration included (structured-merge-diff's prune: both sets widened by the named fields above
  // their members; a map or list emptied by the removal is left null).
  if (mine !== undefined) {
    const owned = withNamedFields([...others.flatMap((e) => [...e.set]), ...newSet], kind);
    const removed = [...withNamedFields([...mine.set], kind)].filter((key) => !owned.has(key));
    if (removed.length > 0) removeMembers(merged, removed, kind);
  }
  normalizeObjectMeta(merged);
  // Other managers lose what the apply removed from the object (structured-merge-diff's update); an
  // entry left empty goes.
  if (live !== undefined) {
    const { removed } = compareObjects(withoutManagedFields(live), withoutManagedFields(merged), kind);
    for (const other of others) for (const key of [...other.set]) if (removed(key)) other.set.delete(key);
  }
  // An apply that leaves the object as it was records no new time (kube's managedFieldsUpdater): a new
  // entry has none, an existing one keeps its own.
  const unchanged = live !== undefined && jsonEqual(withoutManagedFields(merged), withoutManagedFields(live));
  const entry: Entry = {
    manager: options.fieldManager,
    operation: 'Apply',
    apiVersion: options.apiVersion,
    time: unchanged ? (mine?.time ?? '') : options.now,
    subresource,
    set: newSet,
  };
  const nextEntries = mine ? entries.map((e) => (e === mine ? entry : e)) : [...entries, entry];
  return { object: writeEntries(merged, nextEntries), conflicts: [] };
}

function conflictCause(entry: Entry, key: string): FieldCause {
  const field = formatPath(parsePathKey(key));
  const using = entry.operation === 'Update' && entry.apiVersion ? ` using ${entry.apiVersion}` : '';
  const sub = entry.subresource === '' ? '' : ` with subresource ${JSON.stringify(entry.subresource)}`;
  return {
    reason: 'FieldManagerConflict',
    // As kube-apiserver (printManager): the cause names the manager; the field is the cause's `field` (the
    // Status message joins both).
    message: `conflict with ${JSON.stringify(entry.manager)}${sub}${using}`,
    field,
  };
}

/**
 * Whether the node at `path` existed before a write, as structured-merge-diff compares: in the stored object,
 * or — for built-in kinds — encoded by Go anyway (a struct held by value, a field without omitempty) under a
 * parent that existed. Before a create there is the kind's zero object.
 */
function existedBefore(
  before: Record<string, unknown> | undefined,
  path: FieldPath,
  kind: KindRef,
  lookups: ItemIndexCache,
): boolean {
  if (path.length === 0) return true;
  if (before !== undefined && valueAtPath(before, path, lookups) !== undefined) return true;
  const last = path[path.length - 1] ?? '';
  if (!last.startsWith('f:')) return false;
  const names = path.filter((e) => e.startsWith('f:')).map((e) => e.slice(2));
  return isAlwaysEncoded(names, kind) && existedBefore(before, path.slice(0, -1), kind, lookups);
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
  // An object that has no managedFields is not tracked by later writes (kube's skipNonAppliedManager).
  if (before !== undefined && entries.length === 0) return writeEntries(result, []);
  const fits = options.fitsVersion;
  if (
    fits !== undefined &&
    entries.some((e) => e.apiVersion !== options.apiVersion && !fits(e.apiVersion, after))
  ) {
    return writeEntries(result, []);
  }
  const { changed, removed } = compareObjects(before, after, kind);
  // Other managers lose what the write changed or removed, except the reset fields when they manage the
  // request's version (kube keys the reset fields by version: another version's manager loses them too).
  // They keep a node they own while it exists, and a field no object had (a Secret's stringData, applied
  // and then folded into data).
  const subresource = options.subresource ?? '';
  const mine = findEntry(entries, options.manager, 'Update', subresource, options.apiVersion);
  for (const entry of entries) {
    const reset = entry.apiVersion === options.apiVersion ? options.resetFields : undefined;
    const lost = withoutReset(
      new Set([...entry.set].filter((key) => changed.has(key) || removed(key))),
      reset,
    );
    for (const key of lost) entry.set.delete(key);
  }
  // The writer owns what it changed, without the reset fields, merged into its entry for this version.
  // kube's scale subresource maps the Scale's entries onto the parent and loses their time.
  const taken = withoutReset(changed, options.resetFields);
  const now = subresource === 'scale' ? '' : options.now;
  if (taken.size > 0 && mine) {
    for (const key of taken) mine.set.add(key);
    mine.time = now;
  } else if (taken.size > 0) {
    entries.push({
      manager: options.manager,
      operation: 'Update',
      apiVersion: options.apiVersion,
      time: now,
      subresource,
      set: taken,
    });
  }
  return writeEntries(result, entries);
}
