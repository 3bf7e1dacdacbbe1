import type { KindRef } from './kind-ref.js';
import { isAtomicMap, listStrategyFor } from './list-strategy.js';
import { deleteKey, isJsonObject, jsonEqual, type JsonObject } from './json-value.js';

/**
 * A set of owned fields, as structured-merge-diff's fieldpath.Set: its members, each a path of elements
 * `f:<field>`, `k:<json of the merge key>` for an item of a keyed list and `v:<json value>` for an item
 * of a set list. Paths are stored as JSON strings. In kube's fieldsV1 a member that also has members
 * below it is written as `.` under its node; a member with none is an empty object.
 */
export type FieldSet = Set<string>;
export type FieldPath = string[];

/**
 * Top-level and metadata fields no field manager owns (kube's stripmeta). deletionTimestamp and
 * deletionGracePeriodSeconds are not among them: no write changes them, but an object given to
 * before-first-apply has them owned like any other field it holds.
 */
const UNOWNED_TOP_LEVEL = new Set(['apiVersion', 'kind']);
const UNOWNED_METADATA = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
]);

export function pathKey(path: FieldPath): string {
  return JSON.stringify(path);
}

export function parsePathKey(key: string): FieldPath {
  return JSON.parse(key) as FieldPath;
}

/** The owned-field set an object's content implies (every leaf, and every keyed/set list item). */
export function fieldSetOf(obj: unknown, kind: KindRef | undefined, emptyContainers = true): FieldSet {
  const set: FieldSet = new Set();
  walk(obj, [], [], kind, set, emptyContainers);
  return set;
}

/**
 * What server-side apply owns of an applied configuration (structured-merge-diff's ToFieldSet): its leaves,
 * empty maps and list items, without the empty lists that are not atomic.
 */
export function appliedFieldSetOf(obj: unknown, kind: KindRef | undefined): FieldSet {
  return fieldSetOf(obj, kind, false);
}

function walk(
  value: unknown,
  path: FieldPath,
  names: string[],
  kind: KindRef | undefined,
  set: FieldSet,
  emptyContainers: boolean,
): void {
  if (isJsonObject(value) && isAtomicMap(names, kind)) {
    set.add(pathKey(path));
    return;
  }
  if (isJsonObject(value)) {
    // A map is a leaf only when it is really empty, not when it holds server-managed fields alone.
    let children = 0;
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined) continue;
      children++;
      if (names.length === 0 && UNOWNED_TOP_LEVEL.has(key)) continue;
      if (names.length === 1 && names[0] === 'metadata' && path.length === 1 && UNOWNED_METADATA.has(key)) {
        continue;
      }
      walk(child, [...path, `f:${key}`], [...names, key], kind, set, emptyContainers);
    }
    // An empty map is a member for apply too (ToFieldSet keeps a field that is null or an empty map).
    if (children === 0 && path.length > 0) set.add(pathKey(path));
    return;
  }
  if (Array.isArray(value)) {
    const strategy = listStrategyFor(names, kind);
    if (strategy.type === 'atomic' || value.length === 0) {
      if (strategy.type === 'atomic' || emptyContainers) set.add(pathKey(path));
    } else if (strategy.type === 'set') {
      for (const item of value) set.add(pathKey([...path, `v:${JSON.stringify(item)}`]));
    } else {
      for (const item of value) {
        if (!isJsonObject(item)) continue;
        const itemPath = [...path, `k:${JSON.stringify(keyOf(item, strategy.keys, strategy.defaults))}`];
        set.add(pathKey(itemPath));
        for (const [key, child] of Object.entries(item)) {
          if (child !== undefined) {
            walk(child, [...itemPath, `f:${key}`], [...names, key], kind, set, emptyContainers);
          }
        }
      }
    }
    return;
  }
  if (path.length > 0) set.add(pathKey(path));
}

/**
 * The inner nodes of an object, which structured-merge-diff also tracks as members when a write adds them:
 * every non-empty map that is not atomic and every non-empty keyed or set list, below the top level and
 * outside `metadata` itself (kube strips it). With {@link fieldSetOf} they make up every node of the object.
 */
export function nodeSetOf(obj: unknown, kind: KindRef | undefined): FieldSet {
  const set: FieldSet = new Set();
  const visit = (value: unknown, path: FieldPath, names: string[]): void => {
    if (isJsonObject(value)) {
      if (isAtomicMap(names, kind)) return;
      const entries = Object.entries(value).filter(([, child]) => child !== undefined);
      if (entries.length === 0) return;
      if (path.length > 0 && !(path.length === 1 && path[0] === 'f:metadata')) set.add(pathKey(path));
      for (const [key, child] of entries) {
        if (names.length === 0 && UNOWNED_TOP_LEVEL.has(key)) continue;
        if (names.length === 1 && names[0] === 'metadata' && UNOWNED_METADATA.has(key)) continue;
        visit(child, [...path, `f:${key}`], [...names, key]);
      }
      return;
    }
    if (!Array.isArray(value) || value.length === 0) return;
    const strategy = listStrategyFor(names, kind);
    if (strategy.type === 'atomic') return;
    set.add(pathKey(path));
    if (strategy.type !== 'map') return;
    for (const item of value) {
      if (!isJsonObject(item)) continue;
      const itemPath = [...path, `k:${JSON.stringify(keyOf(item, strategy.keys, strategy.defaults))}`];
      for (const [key, child] of Object.entries(item)) {
        if (child !== undefined) visit(child, [...itemPath, `f:${key}`], [...names, key]);
      }
    }
  };
  visit(obj, [], []);
  return set;
}

/** The identity of a keyed list item: its key fields, in the order given (kube sorts them by name). */
export function keyOf(
  item: JsonObject,
  keys: readonly string[],
  defaults: Record<string, unknown> = {},
): JsonObject {
  const key: JsonObject = {};
  for (const name of keys) {
    const value = item[name] ?? defaults[name];
    if (value !== undefined) key[name] = value;
  }
  return key;
}

/** Converts a field set to the nested fieldsV1 JSON kube stores in managedFields. */
export function toFieldsV1(set: FieldSet): JsonObject {
  const root: JsonObject = {};
  const members: JsonObject[] = [];
  for (const key of [...set].sort()) {
    let node = root;
    for (const element of parsePathKey(key)) {
      const next = node[element];
      if (isJsonObject(next)) node = next;
      else {
        const created: JsonObject = {};
        node[element] = created;
        node = created;
      }
    }
    members.push(node);
  }
  // A member with members below it keeps itself as `.` (serialized first, as kube's sorted fieldsV1 has it).
  for (const node of members) {
    if (Object.keys(node).length > 0 && !Object.hasOwn(node, '.')) {
      const children = { ...node };
      for (const k of Object.keys(node)) Reflect.deleteProperty(node, k);
      node['.'] = {};
      Object.assign(node, children);
    }
  }
  return root;
}

/** Reads a fieldsV1 tree back into a field set (an empty node, or `.` under a node, is a member). */
export function fromFieldsV1(tree: unknown): FieldSet {
  const set: FieldSet = new Set();
  const visit = (node: unknown, path: FieldPath): void => {
    if (!isJsonObject(node)) return;
    for (const [element, child] of Object.entries(node)) {
      if (element === '.') {
        if (path.length > 0) set.add(pathKey(path));
      } else if (isJsonObject(child) && Object.keys(child).length > 0) visit(child, [...path, element]);
      else set.add(pathKey([...path, element]));
    }
  };
  visit(tree, []);
  return set;
}

function findItem(list: unknown[], element: string): number {
  if (element.startsWith('k:')) {
    const key = JSON.parse(element.slice(2)) as JsonObject;
    return list.findIndex(
      (item) => isJsonObject(item) && Object.entries(key).every(([k, v]) => jsonEqual(item[k], v)),
    );
  }
  if (element.startsWith('v:')) {
    const wanted: unknown = JSON.parse(element.slice(2));
    return list.findIndex((item) => jsonEqual(item, wanted));
  }
  return -1;
}

/**
 * Item positions of lists that do not change while it lives, by list and key fields: lets a caller that
 * looks up every item of a long list (managedFields of a 20,000-item env) do it in O(n), not O(n²).
 */
export type ItemIndexCache = WeakMap<unknown[], Map<string, Map<string, number>>>;

function findItemCached(list: unknown[], element: string, cache: ItemIndexCache): number {
  const byFields = cache.get(list) ?? new Map<string, Map<string, number>>();
  cache.set(list, byFields);
  let fields: string[] = [];
  let wanted: string;
  if (element.startsWith('k:')) {
    const key = JSON.parse(element.slice(2)) as JsonObject;
    fields = Object.keys(key).sort();
    wanted = JSON.stringify(fields.map((f) => key[f]));
  } else if (element.startsWith('v:')) {
    wanted = JSON.stringify(JSON.parse(element.slice(2)));
  } else return -1;
  const mode = element.startsWith('k:') ? `k:${fields.join(',')}` : 'v:';
  let index = byFields.get(mode);
  if (index === undefined) {
    index = new Map();
    list.forEach((item, i) => {
      let id: string | undefined;
      if (mode === 'v:') id = JSON.stringify(item);
      else if (isJsonObject(item)) id = JSON.stringify(fields.map((f) => item[f]));
      if (id !== undefined && !index?.has(id)) index?.set(id, i);
    });
    byFields.set(mode, index);
  }
  const found = index.get(wanted);
  // Key values that are objects may differ in key order only: fall back to the exact comparison.
  return found ?? findItem(list, element);
}

/** The value at a field path, or undefined when the object does not have it. */
export function valueAtPath(obj: unknown, path: FieldPath, cache?: ItemIndexCache): unknown {
  let current = obj;
  for (const element of path) {
    if (element === '.') continue;
    if (element.startsWith('f:')) {
      current = isJsonObject(current) ? current[element.slice(2)] : undefined;
    } else if (Array.isArray(current)) {
      current = current[cache ? findItemCached(current, element, cache) : findItem(current, element)];
    } else {
      current = undefined;
    }
    if (current === undefined) return undefined;
  }
  return current;
}

/** Removes the field (or list item) at a path from an object, in place; a missing path is a no-op. */
export function removeAtPath(obj: unknown, path: FieldPath): void {
  const target = path[path.length - 1] === '.' ? path.slice(0, -1) : path;
  const last = target[target.length - 1];
  if (last === undefined) return;
  const parent = valueAtPath(obj, target.slice(0, -1));
  if (last.startsWith('f:') && isJsonObject(parent)) deleteKey(parent, last.slice(2));
  else if (Array.isArray(parent)) {
    const index = findItem(parent, last);
    if (index >= 0) parent.splice(index, 1);
  }
}

/** Human form of a path used in conflict messages: `.spec.containers[name="app"].image`. */
export function formatPath(path: FieldPath): string {
  return path
    .map((element) => {
      if (element === '.') return '';
      if (element.startsWith('f:')) return `.${element.slice(2)}`;
      if (element.startsWith('v:')) return `[=${element.slice(2)}]`;
      const key = JSON.parse(element.slice(2)) as JsonObject;
      return `[${Object.entries(key)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    })
    .join('');
}

/** True when `path` lies at or under `prefix` (element-wise). */
export function isUnder(path: FieldPath, prefix: FieldPath): boolean {
  return prefix.length <= path.length && prefix.every((element, i) => path[i] === element);
}
