import { BUILTIN_GROUP_ORDER, builtinTypes } from './builtin-types.js';
import { typeKey, type ResourceType, type ServedVersion } from './resource-type.js';

/** A type resolved for one request: the type plus the version the request used. */
export interface ResolvedType {
  type: ResourceType;
  version: ServedVersion;
}

/**
 * The set of served resource types: built-ins plus those registered by CRDs. Lookups are by
 * group, version and plural; changes take effect immediately (discovery and routing read it live).
 */
export class Registry {
  private readonly types = new Map<string, ResourceType>();

  constructor() {
    for (const type of builtinTypes()) this.types.set(typeKey(type), type);
  }

  /** Adds or replaces a type (CRD create/update). */
  register(type: ResourceType): void {
    this.types.set(typeKey(type), type);
  }

  /** Removes a type (CRD deleted). */
  unregister(group: string, resource: string): void {
    this.types.delete(typeKey({ group, resource }));
  }

  /** The type stored under `group/resource`, regardless of version. */
  byKey(key: string): ResourceType | undefined {
    return this.types.get(key);
  }

  /** The type served at group/version/resource, or undefined. */
  resolve(group: string, version: string, resource: string): ResolvedType | undefined {
    const type = this.types.get(typeKey({ group, resource }));
    const served = type?.versions.find((v) => v.name === version);
    return type && served ? { type, version: served } : undefined;
  }

  /** All types, built-ins first in their fixed order, then CRD types by group and resource. */
  all(): ResourceType[] {
    return [...this.types.values()];
  }

  /** Group names in discovery order (core '' first). */
  groups(): string[] {
    const seen = new Set<string>();
    for (const type of this.types.values()) seen.add(type.group);
    const builtin = BUILTIN_GROUP_ORDER.filter((g) => seen.has(g));
    const custom = [...seen].filter((g) => !BUILTIN_GROUP_ORDER.includes(g)).sort();
    return [...builtin, ...custom];
  }

  /** Versions served in a group, most preferred first. */
  groupVersions(group: string): string[] {
    const versions: string[] = [];
    for (const type of this.types.values()) {
      if (type.group !== group) continue;
      for (const v of type.versions) if (!versions.includes(v.name)) versions.push(v.name);
    }
    return versions.sort(compareVersions);
  }

  /** Types served at group/version. */
  typesIn(group: string, version: string): ResourceType[] {
    return this.all().filter((t) => t.group === group && t.versions.some((v) => v.name === version));
  }
}

const VERSION_PATTERN = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** Kubernetes version priority: GA > beta > alpha, higher numbers first, others alphabetically last. */
export function compareVersions(a: string, b: string): number {
  const ma = VERSION_PATTERN.exec(a);
  const mb = VERSION_PATTERN.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a.localeCompare(b);
  }
  const rank = (m: RegExpExecArray): number => (m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1);
  const ra = rank(ma);
  const rb = rank(mb);
  if (ra !== rb) return rb - ra;
  const major = Number(mb[1]) - Number(ma[1]);
  if (major !== 0) return major;
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}
