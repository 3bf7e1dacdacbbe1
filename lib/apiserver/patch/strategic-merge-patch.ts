import type { KindRef } from './kind-ref.js';
import { isAtomicMap, listStrategyFor, type MergeMode } from './list-strategy.js';
import { keyOf } from './field-set.js';
import { PatchError } from './patch-error.js';
import {
  cloneJson,
  deleteKey,
  getOwn,
  isJsonObject,
  jsonEqual,
  setKey,
  type JsonObject,
} from './json-value.js';

export type { KindRef } from './kind-ref.js';

/** The kind whose lists are merged, and whether by strategic-merge or by apply rules. */
interface MergeRules {
  kind: KindRef;
  mode: MergeMode;
}

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

/**
 * Strategic merge patch for built-in kinds: a JSON merge patch where lists with a merge key (see
 * listStrategyFor) merge item by item, primitive merge lists (finalizers) are unions, and the directives
 * `$patch: replace|delete|merge`, `$retainKeys`, `$deleteFromPrimitiveList/<field>` and
 * `$setElementOrder/<field>` are obeyed and stripped. `null` deletes a key. Never mutates its inputs.
 * Custom resources do not support it: the server answers 415 before calling this.
 */
export function applyStrategicMergePatch(
  target: unknown,
  patch: unknown,
  kind: KindRef,
  mode: MergeMode = 'strategic',
): unknown {
  if (!isJsonObject(patch)) {
    throw new PatchError('strategic merge patch must be a JSON object', 400, 'BadRequest');
  }
  const result = mergeMap(isJsonObject(target) ? target : {}, patch, [], { kind, mode });
  return result ?? {};
}

/** Merges a patch map into an original map; `undefined` means the map itself is deleted. */
function mergeMap(
  original: JsonObject,
  patch: JsonObject,
  path: string[],
  rules: MergeRules,
): JsonObject | undefined {
  const directive = patch[PATCH];
  if (directive === 'delete') return undefined;
  if (directive === 'replace') return stripDirectives(patch);
  if (directive !== undefined && directive !== 'merge') {
    throw new PatchError(`Unknown patch directive: ${JSON.stringify(directive)}`, 422, 'Invalid');
  }
  const result = cloneJson(original);
  const retainKeys = patch[RETAIN_KEYS];
  for (const [key, value] of Object.entries(patch)) {
    if (key === PATCH || key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER) || value === undefined)
      continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      const field = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
      if (!Array.isArray(value)) {
        throw new PatchError(`${key} must be a list of values`, 422, 'Invalid');
      }
      const current = result[field];
      if (Array.isArray(current))
        result[field] = current.filter((item) => !value.some((v) => jsonEqual(v, item)));
      continue;
    }
    if (value === null) {
      deleteKey(result, key);
      continue;
    }
    const merged = mergeValue(getOwn(result, key), value, [...path, key], rules);
    if (merged === undefined) deleteKey(result, key);
    else setKey(result, key, merged);
  }
  if (retainKeys !== undefined) {
    if (!Array.isArray(retainKeys)) throw new PatchError(`${RETAIN_KEYS} must be a list`, 422, 'Invalid');
    for (const key of Object.keys(result)) if (!retainKeys.includes(key)) deleteKey(result, key);
  }
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const field = key.slice(SET_ELEMENT_ORDER.length);
    const list = result[field];
    const before = original[field];
    if (Array.isArray(order) && Array.isArray(list))
      result[field] = reorder(list, order, Array.isArray(before) ? before : [], [...path, field], rules);
  }
  return result;
}

function mergeValue(original: unknown, patch: unknown, path: string[], rules: MergeRules): unknown {
  if (isJsonObject(patch) && isAtomicMap(path, rules.kind, rules.mode)) return stripDirectives(patch);
  if (isJsonObject(patch)) return mergeMap(isJsonObject(original) ? original : {}, patch, path, rules);
  if (Array.isArray(patch)) return mergeList(Array.isArray(original) ? original : [], patch, path, rules);
  return cloneJson(patch);
}

function mergeList(original: unknown[], patch: unknown[], path: string[], rules: MergeRules): unknown[] {
  const strategy = listStrategyFor(path, rules.kind, rules.mode);
  const replace = patch.find((item) => isJsonObject(item) && item[PATCH] === 'replace');
  if (replace !== undefined) {
    return patch
      .filter((item) => item !== replace)
      .map((item) => (isJsonObject(item) ? stripDirectives(item) : item));
  }
  if (strategy.type === 'atomic')
    return patch.map((item) => (isJsonObject(item) ? stripDirectives(item) : item));
  if (strategy.type === 'set') {
    const result = cloneJson(original);
    for (const item of patch)
      if (!result.some((existing) => jsonEqual(existing, item))) result.push(cloneJson(item));
    if (rules.mode === 'strategic') return normalizeOrder(result, patch, original, (item) => item);
    return applyOrder(result, original, patch, (item) => JSON.stringify(item));
  }
  const result = cloneJson(original);
  const keys = strategy.keys;
  const keyNames = keys.join('", "');
  for (const item of patch) {
    if (!isJsonObject(item)) {
      throw new PatchError(
        `list ${path.join('.')} merges by "${keyNames}": items must be objects`,
        422,
        'Invalid',
      );
    }
    const defaults = strategy.defaults ?? {};
    const missing = keys.find((key) => item[key] === undefined && defaults[key] === undefined);
    if (missing !== undefined && item[PATCH] !== 'delete') {
      throw new PatchError(
        `map: ${JSON.stringify(item)} does not contain declared merge key: ${missing}`,
        422,
        'Invalid',
      );
    }
    const index = result.findIndex(
      (existing) =>
        isJsonObject(existing) &&
        keys.every((key) => jsonEqual(existing[key] ?? defaults[key], item[key] ?? defaults[key])),
    );
    if (item[PATCH] === 'delete') {
      if (index >= 0) result.splice(index, 1);
      continue;
    }
    const existing = index >= 0 ? result[index] : undefined;
    const merged = mergeMap(isJsonObject(existing) ? existing : {}, item, path, rules);
    if (index >= 0) {
      if (merged === undefined) result.splice(index, 1);
      else result[index] = merged;
    } else if (merged !== undefined) {
      result.push(merged);
    }
  }
  const defaults = strategy.defaults ?? {};
  const identity = (item: unknown): unknown => (isJsonObject(item) ? keyOf(item, keys, defaults) : item);
  if (rules.mode !== 'strategic')
    return applyOrder(result, original, patch, (item) => JSON.stringify(identity(item)));
  return normalizeOrder(result, patch, original, identity);
}

/**
 * The order server-side apply gives a merged list (structured-merge-diff's mergingWalker.visitListItems):
 * live and applied items walked side by side, items both have merged where the applied list puts them,
 * live-only items kept where they were, applied-only items where the applied list puts them.
 */
function applyOrder(
  merged: unknown[],
  live: unknown[],
  applied: unknown[],
  id: (item: unknown) => string,
): unknown[] {
  const lhs = live.map(id);
  const rhs = applied.map(id);
  const inRhs = new Set(rhs);
  const inLhs = new Set(lhs);
  const shared = rhs.filter((x) => inLhs.has(x));
  let nextShared = shared.shift();
  const mergedIds = new Set<string>();
  const order: string[] = [];
  for (let l = 0, r = 0; l < lhs.length || r < rhs.length;) {
    const left = lhs[l];
    const right = rhs[r];
    if (left !== undefined && right !== undefined) {
      if (left === right) {
        mergedIds.add(left);
        order.push(left);
        l++;
        r++;
        nextShared = shared.shift();
        continue;
      }
      if (inRhs.has(left) && nextShared !== undefined && nextShared !== left) {
        l++;
        continue;
      }
    }
    if (left !== undefined) {
      if (!inRhs.has(left)) {
        order.push(left);
        l++;
        continue;
      } else if (mergedIds.has(left)) l++;
    }
    if (right !== undefined) {
      mergedIds.add(right);
      order.push(right);
      r++;
      if (nextShared === right) nextShared = shared.shift();
    }
  }
  const byId = new Map(merged.map((item) => [id(item), item]));
  const out = order.flatMap((x) => {
    const item = byId.get(x);
    byId.delete(x);
    return item === undefined ? [] : [item];
  });
  // Items the walk did not place (duplicates) keep their merged position at the end.
  return [...out, ...byId.values()];
}

/**
 * The order kube gives a merged list (k8s.io/apimachinery/pkg/util/strategicpatch, normalizeElementOrder
 * and mergeSortedSlice): the items the patch (or its `$setElementOrder`) names, in that order, interleaved
 * with the items only the server had, in their original order — a server item goes first only when both
 * are in the original list and it came earlier there, so a new item lands before the server's items.
 */
function normalizeOrder(
  merged: unknown[],
  patchOrder: unknown[],
  original: unknown[],
  identity: (item: unknown) => unknown,
): unknown[] {
  // Positions by identity, computed once: a list of n items costs O(n log n), not O(n²).
  const positions = (list: unknown[]): Map<string, number> => {
    const map = new Map<string, number>();
    list.forEach((item, i) => {
      const id = JSON.stringify(identity(item));
      if (!map.has(id)) map.set(id, i);
    });
    return map;
  };
  const inPatch = positions(patchOrder);
  const inOriginal = positions(original);
  const ids = new Map(merged.map((item) => [item, JSON.stringify(identity(item))]));
  const at = (map: Map<string, number>, item: unknown): number => map.get(ids.get(item) ?? '') ?? -1;
  const patchItems = merged.filter((item) => at(inPatch, item) >= 0);
  patchItems.sort((a, b) => at(inPatch, a) - at(inPatch, b));
  const serverOnly = merged.filter((item) => at(inPatch, item) < 0);
  serverOnly.sort((a, b) => at(inOriginal, a) - at(inOriginal, b));
  const result: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patchItems.length) {
    if (j >= patchItems.length) result.push(serverOnly[i++]);
    else if (i >= serverOnly.length) result.push(patchItems[j++]);
    else {
      const left = at(inOriginal, serverOnly[i]);
      const right = at(inOriginal, patchItems[j]);
      result.push(left >= 0 && right >= 0 && left < right ? serverOnly[i++] : patchItems[j++]);
    }
  }
  return result;
}

/** Orders `list` as `$setElementOrder` says, as kube does (normalizeOrder with the order as the patch's). */
function reorder(
  list: unknown[],
  order: unknown[],
  original: unknown[],
  path: string[],
  rules: MergeRules,
): unknown[] {
  const strategy = listStrategyFor(path, rules.kind, rules.mode);
  const identity = (item: unknown): unknown =>
    strategy.type === 'map' && isJsonObject(item) ? keyOf(item, strategy.keys, strategy.defaults) : item;
  return normalizeOrder(list, order, original, identity);
}

/** Removes every `$…` directive key from a map, recursively (for replaced subtrees). */
function stripDirectives(value: JsonObject): JsonObject {
  const result: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key.startsWith('$')) continue;
    if (isJsonObject(child)) setKey(result, key, stripDirectives(child));
    else if (Array.isArray(child)) {
      setKey(
        result,
        key,
        child.map((item) => (isJsonObject(item) ? stripDirectives(item) : cloneJson<unknown>(item))),
      );
    } else setKey(result, key, cloneJson(child));
  }
  return result;
}
