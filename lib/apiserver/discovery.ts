import type { JsonObject } from './json.js';
import type { Registry } from './registry.js';
import { RESOURCE_VERBS, apiVersionOf, type ResourceType } from './resource-type.js';

const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

function subresourcesOf(
  type: ResourceType,
): { name: string; kind: string; group: string; version: string; verbs: string[] }[] {
  const subs: { name: string; kind: string; group: string; version: string; verbs: string[] }[] = [];
  if (type.statusSubresource)
    subs.push({ name: 'status', kind: type.kind, group: type.group, version: '', verbs: SUBRESOURCE_VERBS });
  if (type.scale)
    subs.push({
      name: 'scale',
      kind: 'Scale',
      group: 'autoscaling',
      version: 'v1',
      verbs: SUBRESOURCE_VERBS,
    });
  if (type.group === '' && type.resource === 'namespaces') {
    subs.push({ name: 'finalize', kind: 'Namespace', group: '', version: '', verbs: ['update'] });
  }
  return subs;
}

/** `GET /api`. */
export function apiVersions(hostPort: string): JsonObject {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: hostPort }],
  };
}

/** `GET /api/v1` and `GET /apis/{g}/{v}`: main resources listed before their subresources. */
export function apiResourceList(registry: Registry, group: string, version: string): JsonObject | undefined {
  const types = registry.typesIn(group, version);
  if (types.length === 0) return undefined;
  const resources: JsonObject[] = [];
  for (const t of types) {
    const entry: JsonObject = {
      name: t.resource,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.verbs ?? RESOURCE_VERBS,
    };
    if (t.shortNames.length > 0) entry.shortNames = t.shortNames;
    if (t.categories.length > 0) entry.categories = t.categories;
    resources.push(entry);
    for (const sub of subresourcesOf(t)) {
      const subEntry: JsonObject = {
        name: `${t.resource}/${sub.name}`,
        singularName: '',
        namespaced: t.namespaced,
        kind: sub.kind,
        verbs: sub.verbs,
      };
      if (sub.group !== t.group || sub.version !== '') {
        subEntry.group = sub.group;
        subEntry.version = sub.version;
      }
      resources.push(subEntry);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(group, version), resources };
}

function apiGroupOf(registry: Registry, group: string): JsonObject {
  const versions = registry.groupVersions(group).map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions, preferredVersion: versions[0] };
}

/** `GET /apis` (legacy). */
export function apiGroupList(registry: Registry): JsonObject {
  const groups = registry.groups().filter((g) => g !== '');
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((g) => apiGroupOf(registry, g)) };
}

/** `GET /apis/{g}`, or undefined when the group is not served. */
export function apiGroup(registry: Registry, group: string): JsonObject | undefined {
  if (group === '' || !registry.groups().includes(group)) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupOf(registry, group) };
}

/** Aggregated discovery (`/api` or `/apis` with as=APIGroupDiscoveryList). */
export function aggregatedDiscovery(registry: Registry, core: boolean, apiVersion: string): JsonObject {
  const groups = registry.groups().filter((g) => (core ? g === '' : g !== ''));
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion,
    metadata: {},
    items: groups.map((group) => ({
      metadata: { name: group },
      versions: registry.groupVersions(group).map((version) => ({
        version,
        freshness: 'Current',
        resources: registry.typesIn(group, version).map((t) => {
          const entry: JsonObject = {
            resource: t.resource,
            responseKind: { group, version, kind: t.kind },
            scope: t.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: t.singular,
            verbs: t.verbs ?? RESOURCE_VERBS,
          };
          if (t.shortNames.length > 0) entry.shortNames = t.shortNames;
          if (t.categories.length > 0) entry.categories = t.categories;
          const subs = subresourcesOf(t);
          if (subs.length > 0) {
            entry.subresources = subs.map((s) => ({
              subresource: s.name,
              responseKind: {
                group: s.version === '' ? group : s.group,
                version: s.version === '' ? version : s.version,
                kind: s.kind,
              },
              verbs: s.verbs,
            }));
          }
          return entry;
        }),
      })),
    })),
  };
}

/**
 * Which aggregated discovery version the Accept header asks for first (undefined = legacy).
 * client-go decides how to parse from the response Content-Type, so it must echo this choice.
 */
export function aggregatedVersionWanted(accept: string): 'v2' | 'v2beta1' | undefined {
  for (const part of accept.split(',')) {
    if (!part.includes('as=APIGroupDiscoveryList') || !part.includes('g=apidiscovery.k8s.io')) continue;
    if (/v=v2beta1/.test(part)) return 'v2beta1';
    if (/v=v2(;|$|\s)/.test(part)) return 'v2';
  }
  return undefined;
}
