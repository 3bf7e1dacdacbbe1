// What an operator needs RBAC for, derived from its front ends' resolved configuration (the requests the
// engine makes) plus the `rbac` declaration of its entry module (the requests of the user's own code),
// and rendered as least-privilege ServiceAccount, ClusterRole and Roles with their bindings.
import type { ResolvedCoreConfig } from '../../engine/resolve-core-config.js';
import type { CustomResourceDefinition } from '../../kinds/crd-types.js';
import type { RbacDeclaration, RbacVerb } from '../../kinds/rbac-declaration.js';

/** What generate uses of a kind from defineKind (any of its type parameters). */
export interface KindLike {
  readonly group: string;
  readonly kind: string;
  crd(): CustomResourceDefinition;
}

/** One grant: a verb on a resource (`plural` or `plural/subresource`) of a group, cluster-wide or in one namespace. */
export interface Grant {
  group: string;
  resource: string;
  verbs: RbacVerb[];
  /** undefined: every namespace (ClusterRole). */
  namespace: string | undefined;
  reason: string;
}

/** Options of {@link deriveGrants}. */
export interface DeriveOptions {
  /** The namespace of the operator's ServiceAccount (and of its Lease with `leaderElection`). */
  namespace: string;
  /** Grant the leader-election Lease in `namespace` even when the loaded configuration elects no leader. */
  leaderElection: boolean;
}

/** Thrown for configuration `reconcilekit generate` cannot derive RBAC from; the message says what to add. */
export class GenerateError extends Error {
  override readonly name = 'GenerateError';
}

const VERB_ORDER: readonly RbacVerb[] = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
];

function groupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

interface Ref {
  apiVersion: string;
  kind: string;
  plural?: string;
  namespace?: string;
}

function pluralOf(ref: Ref, where: string): string {
  if (ref.plural === undefined || ref.plural === '') {
    throw new GenerateError(
      `${where} (${ref.kind} ${ref.apiVersion}) has no plural: RBAC rules name resources by their plural — give plural (e.g. plural: '${ref.kind.toLowerCase()}s' if that is its name) or use a kind from defineKind`,
    );
  }
  return ref.plural;
}

/**
 * The grants the engine's own requests need for one front end's configuration:
 * - the reconciled kind: list+watch (its cache), get (re-reads before finalizer and status writes), patch
 *   when a finalizer is managed (JSON patches of metadata.finalizers);
 * - its status: patch when the error condition is on and the kind has a status subresource (merge patch);
 * - its finalizers: update when it owns kinds (children's ownerReferences set blockOwnerDeletion, which
 *   the OwnerReferencesPermissionEnforcement admission plugin checks against this permission);
 * - owned and watched kinds: list+watch (their caches);
 * - Events: create, and patch (repeats are aggregated), in the reconciled objects' namespaces;
 * - the leader-election Lease: get, create, update in its namespace;
 * - with `sharding`: the shard Leases in its lease namespace (every verb but deletecollection), patch on
 *   the sharded kind (the shard and drain labels) and, with children that follow, on the owned kinds;
 * - the CRD to install (config.crd): get, create on customresourcedefinitions.
 */
export function engineGrants(
  config: ResolvedCoreConfig,
  kinds: readonly KindLike[],
  options: DeriveOptions,
): Grant[] {
  const grants: Grant[] = [];
  const add = (
    ref: Ref,
    resource: string,
    verbs: RbacVerb[],
    namespace: string | undefined,
    reason: string,
  ) => grants.push({ group: groupOf(ref.apiVersion), resource, verbs, namespace, reason });
  const name = config.name;
  const primary = config.resource;
  if (primary !== undefined) {
    const plural = pluralOf(primary, `${name}: resource`);
    // An exported kind, or the kind object given as `resource` itself (the module need not export it).
    const kind =
      kinds.find((k) => k.group === groupOf(primary.apiVersion) && k.kind === primary.kind) ??
      (typeof (primary as Partial<KindLike>).crd === 'function'
        ? (primary as unknown as KindLike)
        : undefined);
    const ns = primary.namespace;
    add(
      primary,
      plural,
      ['get', 'list', 'watch'],
      ns,
      `${primary.kind}: cached (list, watch) and re-read (get)`,
    );
    if (config.finalizer !== false) {
      add(
        primary,
        plural,
        ['patch'],
        ns,
        `${primary.kind}: the finalizer ${config.finalizer} is added and removed (JSON patch)`,
      );
    }
    const hasStatus =
      kind === undefined ||
      kind.crd().spec.versions.some((v) => v.subresources?.status !== undefined && v.storage);
    if (config.errorCondition !== false && hasStatus) {
      add(
        primary,
        `${plural}/status`,
        ['patch'],
        ns,
        `${primary.kind}: a failed reconcile sets the ${config.errorCondition.type} condition (merge patch of the status)`,
      );
    }
    if (config.owns.length > 0) {
      add(
        primary,
        `${plural}/finalizers`,
        ['update'],
        ns,
        `${primary.kind}: owned objects carry ownerReferences with blockOwnerDeletion, which needs update on the owner's finalizers`,
      );
    }
    if (config.events !== false) {
      add(
        { apiVersion: 'v1', kind: 'Event' },
        'events',
        ['create', 'patch'],
        ns,
        'Warning Events on failed reconciles; repeats are aggregated (patch)',
      );
    }
  }
  for (const owned of config.owns) {
    const plural = pluralOf(owned, `${name}: owns`);
    add(
      owned,
      plural,
      ['list', 'watch'],
      owned.namespace ?? primary?.namespace,
      `owned ${owned.kind}: cached (list, watch); changes wake the owner`,
    );
  }
  for (const watched of config.watches) {
    const plural = pluralOf(watched, `${name}: watches`);
    add(
      watched,
      plural,
      ['list', 'watch'],
      watched.namespace,
      `watched ${watched.kind}: cached (list, watch); map() picks the objects to reconcile`,
    );
  }
  const lease =
    config.leaderElection === false
      ? options.leaderElection
        ? options.namespace
        : undefined
      : config.leaderElection.namespace;
  if (lease !== undefined) {
    add(
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
      'leases',
      ['get', 'create', 'update'],
      lease,
      "leader election between replicas: one Lease in the operator's namespace",
    );
  }
  const sharding = config.sharding;
  if (sharding !== undefined) {
    add(
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
      'leases',
      ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      sharding.leaseNamespace,
      'sharding: each replica holds its shard Lease (get, create, update; patch marks it leaving), the sharder is elected with one and watches the set (list, watch) and deletes the Leases of shards gone for good',
    );
    if (primary !== undefined) {
      add(
        primary,
        pluralOf(primary, `${name}: resource`),
        ['patch'],
        primary.namespace,
        `${primary.kind}: sharding — the sharder writes the shard label, a shard removes it when it lets an object go (JSON patches of metadata.labels)`,
      );
    }
    if (sharding.children === 'follow') {
      for (const owned of config.owns) {
        add(
          owned,
          pluralOf(owned, `${name}: owns`),
          ['patch'],
          owned.namespace ?? primary?.namespace,
          `owned ${owned.kind}: sharding — children carry their owner's shard label (children: 'follow')`,
        );
      }
    }
  }
  if (config.crd !== undefined) {
    add(
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
      'customresourcedefinitions',
      ['get', 'create'],
      undefined,
      'config.crd: the CRD is created when missing and read until Established',
    );
  }
  return grants;
}

/** The grants of the `rbac` declaration (requests of the user's own code). */
export function declaredGrants(declaration: RbacDeclaration | undefined): Grant[] {
  return (declaration?.uses ?? []).map((use, i) => {
    if (typeof use.plural !== 'string' || use.plural === '' || typeof use.apiVersion !== 'string') {
      throw new GenerateError(`rbac.uses[${i}] needs apiVersion and plural`);
    }
    const listed: unknown = use.verbs;
    if (!Array.isArray(listed) || listed.length === 0) {
      throw new GenerateError(
        `rbac.uses[${i}] (${use.plural}) needs verbs, e.g. ['get', 'create', 'update']`,
      );
    }
    const verbs: RbacVerb[] = [];
    for (const verb of listed as unknown[]) {
      if (typeof verb !== 'string' || !(VERB_ORDER as readonly string[]).includes(verb)) {
        throw new GenerateError(
          `rbac.uses[${i}] (${use.plural}): unknown verb ${JSON.stringify(verb)} (one of ${VERB_ORDER.join(', ')})`,
        );
      }
      verbs.push(verb as RbacVerb);
    }
    return {
      group: groupOf(use.apiVersion),
      resource: use.subresource === undefined ? use.plural : `${use.plural}/${use.subresource}`,
      verbs,
      namespace: use.namespace,
      reason: use.reason ?? 'your code (rbac.uses)',
    };
  });
}

/** One rule of a Role or ClusterRole, with the reasons of its verbs. */
export interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: RbacVerb[];
  reasons: string[];
}

/**
 * Merges grants into rules per scope (undefined: the ClusterRole; else a Role per namespace): one rule per
 * group and set of verbs, listing the resources that need exactly those verbs, in a stable order.
 */
export function rulesByScope(grants: readonly Grant[]): Map<string | undefined, Rule[]> {
  // A grant in a namespace is covered by the ClusterRole when the same verb is granted cluster-wide.
  const perResource = new Map<
    string,
    { scope: string | undefined; group: string; resource: string; verbs: Set<RbacVerb>; reasons: string[] }
  >();
  for (const g of grants) {
    const key = JSON.stringify([g.namespace ?? null, g.group, g.resource]);
    const entry = perResource.get(key) ?? {
      scope: g.namespace,
      group: g.group,
      resource: g.resource,
      verbs: new Set(),
      reasons: [],
    };
    for (const v of g.verbs) entry.verbs.add(v);
    if (!entry.reasons.includes(g.reason)) entry.reasons.push(g.reason);
    perResource.set(key, entry);
  }
  for (const entry of perResource.values()) {
    if (entry.scope === undefined) continue;
    const cluster = perResource.get(JSON.stringify([null, entry.group, entry.resource]));
    if (cluster !== undefined) for (const v of cluster.verbs) entry.verbs.delete(v);
  }
  const out = new Map<string | undefined, Rule[]>();
  const merged = new Map<string, Rule & { scope: string | undefined }>();
  for (const entry of perResource.values()) {
    if (entry.verbs.size === 0) continue;
    const verbs = VERB_ORDER.filter((v) => entry.verbs.has(v));
    const key = JSON.stringify([entry.scope ?? null, entry.group, verbs]);
    const rule = merged.get(key) ?? {
      scope: entry.scope,
      apiGroups: [entry.group],
      resources: [],
      verbs,
      reasons: [],
    };
    rule.resources.push(entry.resource);
    for (const r of entry.reasons) if (!rule.reasons.includes(r)) rule.reasons.push(r);
    merged.set(key, rule);
  }
  const sorted = [...merged.values()].sort(
    (a, b) =>
      (a.apiGroups[0] ?? '').localeCompare(b.apiGroups[0] ?? '') ||
      (a.resources[0] ?? '').localeCompare(b.resources[0] ?? '') ||
      VERB_ORDER.indexOf(a.verbs[0] ?? 'get') - VERB_ORDER.indexOf(b.verbs[0] ?? 'get'),
  );
  for (const { scope, ...rule } of sorted) {
    rule.resources.sort();
    const list = out.get(scope) ?? [];
    list.push(rule);
    out.set(scope, list);
  }
  return out;
}

const q = (s: string): string => JSON.stringify(s);

function renderRules(rules: readonly Rule[]): string {
  return rules
    .map(
      (r) =>
        `${r.reasons.map((reason) => `  # ${reason}\n`).join('')}  - apiGroups: [${r.apiGroups.map(q).join(', ')}]\n    resources: [${r.resources.map(q).join(', ')}]\n    verbs: [${r.verbs.join(', ')}]\n`,
    )
    .join('');
}

/** rbac.yaml: ServiceAccount, ClusterRole(+Binding) for cluster-wide grants, a Role(+Binding) per namespace. */
export function renderRbac(name: string, namespace: string, grants: readonly Grant[]): string {
  const labels = `  labels:\n    app.kubernetes.io/name: ${q(name)}\n`;
  const subject = `subjects:\n  - kind: ServiceAccount\n    name: ${q(name)}\n    namespace: ${q(namespace)}\n`;
  const docs: string[] = [
    `# Generated by reconcilekit generate rbac: least privilege, from the operator's configuration and its rbac\n# declaration. Do not edit; regenerate.\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ${q(name)}\n  namespace: ${q(namespace)}\n${labels}`,
  ];
  const scopes = rulesByScope(grants);
  const cluster = scopes.get(undefined);
  if (cluster !== undefined) {
    docs.push(
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${q(name)}\n${labels}rules:\n${renderRules(cluster)}`,
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: ${q(name)}\n${labels}roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: ${q(name)}\n${subject}`,
    );
  }
  const namespaces = [...scopes.keys()].filter((s): s is string => s !== undefined).sort();
  for (const ns of namespaces) {
    const role = ns === namespace ? name : `${name}-${ns}`;
    docs.push(
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: ${q(role)}\n  namespace: ${q(ns)}\n${labels}rules:\n${renderRules(scopes.get(ns) ?? [])}`,
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: ${q(role)}\n  namespace: ${q(ns)}\n${labels}roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: ${q(role)}\n${subject}`,
    );
  }
  return docs.join('---\n');
}
