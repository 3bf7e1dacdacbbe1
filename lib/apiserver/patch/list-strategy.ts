import { builtInSchema, type BuiltInSchema } from '../builtin/builtin-schemas.js';
import type { KindRef } from './kind-ref.js';
import { schemaAtPath } from './schema-path.js';

/**
 * How a list merges in strategic merge patch and server-side apply:
 * - `map`: items are objects identified by `keys` (kube's patchMergeKey / x-kubernetes-list-map-keys);
 * - `set`: a list of scalars merged as a union (kube's `patchStrategy: merge` on primitive lists);
 * - `atomic`: the list is replaced as a whole.
 */
export type ListStrategy =
  | {
      type: 'map';
      keys: string[];
      /** Schema defaults of key fields (a built-in port's `protocol: TCP`): used when an item leaves one out. */
      defaults?: Record<string, unknown>;
    }
  | { type: 'set' }
  | { type: 'atomic' };

/**
 * Which rules a built-in list follows: `apply` (server-side apply and managedFields: the OpenAPI's
 * x-kubernetes-list-type/map-keys, else its patch strategy, as kube-openapi's schemaconv) or `strategic`
 * (strategic merge patch: the Go fields' patchStrategy/patchMergeKey only).
 */
export type MergeMode = 'apply' | 'strategic';

const ATOMIC: ListStrategy = { type: 'atomic' };
const SET: ListStrategy = { type: 'set' };

function byKey(key: string): ListStrategy {
  return { type: 'map', keys: [key] };
}

/** Lists of built-in kinds merged by a key, by field name (derived from the Go types' patch tags). */
const BUILT_IN_MAP_LISTS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  secrets: 'name',
  conditions: 'type',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  resourceClaims: 'name',
  taints: 'key',
};

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/** True for the built-in API groups (core, no-dot groups such as apps/batch, and *.k8s.io). */
export function isBuiltInGroup(group: string): boolean {
  return group === '' || !group.includes('.') || group.endsWith('.k8s.io');
}

/**
 * The merge strategy of the list at `path` (field names from the object root, without list indices).
 * `metadata.finalizers` (set) and `metadata.ownerReferences` (by uid) hold for every kind, custom
 * resources included; other lists of custom resources follow their schema's `x-kubernetes-list-type`
 * (kube: apiextensions-apiserver/pkg/apiserver/schema/... → structured-merge-diff's schema conversion,
 * k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder), atomic when the schema says nothing.
 */
export function listStrategyFor(
  path: readonly string[],
  kind: KindRef | undefined,
  mode: MergeMode = 'apply',
): ListStrategy {
  const field = path[path.length - 1] ?? '';
  if (path.length === 2 && path[0] === 'metadata') {
    if (field === 'finalizers') return SET;
    if (field === 'ownerReferences') return byKey('uid');
    return ATOMIC;
  }
  if (kind?.schema !== undefined) return schemaListStrategy(kind, path);
  if (kind === undefined || !isBuiltInGroup(kind.group)) return ATOMIC;
  const builtIn = builtInSchema(kind.group, kind.version, kind.kind);
  if (builtIn !== undefined) return builtInListStrategy(schemaAtPath(builtIn, path), mode);
  if (field === 'ports') {
    if (kind.kind === 'Service' && path.length === 2 && path[0] === 'spec') return byKey('port');
    if (CONTAINER_LISTS.has(path[path.length - 2] ?? '')) return byKey('containerPort');
    return ATOMIC;
  }
  if (field === 'addresses') return path.length === 2 && path[0] === 'status' ? byKey('type') : ATOMIC;
  if (field === 'tolerations' || field === 'readinessGates' || field === 'envFrom') return ATOMIC;
  const key = Object.hasOwn(BUILT_IN_MAP_LISTS, field) ? BUILT_IN_MAP_LISTS[field] : undefined;
  return key === undefined ? ATOMIC : byKey(key);
}

/** Kinds the generated schemas do not hold (Scale) fall back to the hand-typed table above. */
function builtInListStrategy(node: BuiltInSchema | undefined, mode: MergeMode): ListStrategy {
  if (node === undefined) return ATOMIC;
  if (mode === 'apply') {
    const type = node['x-kubernetes-list-type'];
    if (type === 'set') return SET;
    if (type === 'atomic') return ATOMIC;
    const keys = node['x-kubernetes-list-map-keys'];
    if (type === 'map' && Array.isArray(keys) && keys.length > 0) {
      const defaults: Record<string, unknown> = {};
      for (const key of keys) {
        const value = node.items?.properties?.[key]?.default;
        if (value !== undefined) defaults[key] = value;
      }
      return { type: 'map', keys: [...keys].sort(), defaults };
    }
  }
  const strategies = (node['x-kubernetes-patch-strategy'] ?? '').split(',');
  if (!strategies.includes('merge')) return ATOMIC;
  const key = node['x-kubernetes-patch-merge-key'];
  return key === undefined ? SET : byKey(key);
}

function schemaListStrategy(kind: KindRef, path: readonly string[]): ListStrategy {
  const node = schemaAtPath(kind.schema, path);
  const type = node?.['x-kubernetes-list-type'];
  if (type === 'set') return SET;
  if (type === 'map') {
    const keys = node?.['x-kubernetes-list-map-keys'];
    return Array.isArray(keys) && keys.length > 0 ? { type: 'map', keys: [...keys].sort() } : ATOMIC;
  }
  return ATOMIC;
}

/** True when the map at `path` is replaced whole (`x-kubernetes-map-type: atomic` in the kind's schema). */
export function isAtomicMap(
  path: readonly string[],
  kind: KindRef | undefined,
  mode: MergeMode = 'apply',
): boolean {
  if (kind === undefined || path.length === 0 || mode === 'strategic') return false;
  const schema =
    kind.schema ??
    (isBuiltInGroup(kind.group) ? builtInSchema(kind.group, kind.version, kind.kind) : undefined);
  if (schema === undefined) return false;
  return schemaAtPath(schema, path)?.['x-kubernetes-map-type'] === 'atomic';
}

/**
 * Whether a built-in kind's Go encoding writes the field at `path` even when it is empty — a struct held by
 * value (the OpenAPI marks it `default: {}`) or a field without omitempty (listed as required) — so that,
 * to structured-merge-diff, it exists in every object, a new one included, whenever its parent does.
 */
export function isAlwaysEncoded(path: readonly string[], kind: KindRef | undefined): boolean {
  if (kind === undefined || kind.schema !== undefined || path.length === 0 || !isBuiltInGroup(kind.group)) {
    return false;
  }
  const schema = builtInSchema(kind.group, kind.version, kind.kind);
  if (schema === undefined) return false;
  let parent = schemaAtPath(schema, path.slice(0, -1));
  while (parent?.type === 'array' && parent.items !== undefined) parent = parent.items;
  const field = path[path.length - 1] ?? '';
  if (parent?.required?.includes(field) === true) return true;
  const node = parent?.properties?.[field];
  const value: unknown = node?.default;
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

/**
 * The value Go encodes for the field at `path` of a built-in kind's zero object (what structured-merge-diff
 * compares a create against): `{}` for a struct, `null` for a list, map or pointer, `0`, `""` or `false`.
 * Only meaningful where {@link isAlwaysEncoded} is true.
 */
export function goZeroValue(path: readonly string[], kind: KindRef | undefined): unknown {
  if (kind === undefined || kind.schema !== undefined || !isBuiltInGroup(kind.group)) return null;
  const schema = builtInSchema(kind.group, kind.version, kind.kind);
  const node = schema === undefined ? undefined : schemaAtPath(schema, path);
  const byValue: unknown = node?.default;
  if (typeof byValue === 'object' && byValue !== null) return {};
  switch (node?.type) {
    case 'integer':
    case 'number':
      return 0;
    case 'string':
      return node.format === 'byte' ? null : '';
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/**
 * Whether the field at `path` is a field the schema declares (a struct's named field), as opposed to a key
 * of a map: structured-merge-diff's EnsureNamedFieldsAreMembers counts only the former as members.
 * The object's top-level fields and metadata's own fields always are.
 */
export function isNamedField(path: readonly string[], kind: KindRef | undefined): boolean {
  if (path.length === 1) return true;
  if (path.length === 2 && path[0] === 'metadata') return true;
  if (path[0] === 'metadata') return false;
  const schema =
    kind?.schema ??
    (kind !== undefined && isBuiltInGroup(kind.group)
      ? builtInSchema(kind.group, kind.version, kind.kind)
      : undefined);
  if (schema === undefined) return false;
  let parent = schemaAtPath(schema, path.slice(0, -1));
  while (parent?.type === 'array' && parent.items !== undefined) parent = parent.items;
  const field = path[path.length - 1] ?? '';
  return parent?.properties !== undefined && Object.hasOwn(parent.properties, field);
}
