import type { ApiServerCore } from './core.js';
import { deepEqual, formatTime, metadataOf, objectAt, stringAt, stringsAt, type JsonObject } from './json.js';
import { deleteObject } from './object-lifecycle.js';

/** The ConfigMap kube-controller-manager's root-ca-cert-publisher keeps in every namespace. */
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
/** The ServiceAccount kube-controller-manager's serviceaccount controller keeps in every namespace. */
export const DEFAULT_SERVICE_ACCOUNT = 'default';

const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/** Condition types the namespace controller maintains while a namespace terminates, in its order. */
const CONDITION_TYPES = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
] as const;

/** The "everything fine" variant of each (pkg/controller/namespace/deletion/status_condition_utils.go). */
const OK: Record<(typeof CONDITION_TYPES)[number], { reason: string; message: string }> = {
  NamespaceDeletionDiscoveryFailure: {
    reason: 'ResourcesDiscovered',
    message: 'All resources successfully discovered',
  },
  NamespaceDeletionGroupVersionParsingFailure: {
    reason: 'ParsedGroupVersions',
    message: 'All legacy kube types successfully parsed',
  },
  NamespaceDeletionContentFailure: {
    reason: 'ContentDeleted',
    message: 'All content successfully deleted, may be waiting on finalization',
  },
  NamespaceContentRemaining: { reason: 'ContentRemoved', message: 'All content successfully removed' },
  NamespaceFinalizersRemaining: {
    reason: 'ContentHasNoFinalizers',
    message: 'All content-preserving finalizers finished',
  },
};

interface Condition {
  type: string;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/**
 * The conditions as kube's namespace controller writes them after a deletion pass: what remains per
 * resource (`configmaps. has 1 resource instances`, group after the dot) and per finalizer.
 */
function deletionConditions(
  remainingByResource: Map<string, number>,
  remainingByFinalizer: Map<string, number>,
): Condition[] {
  const failing = new Map<string, Condition>();
  if (remainingByResource.size > 0) {
    const parts = [...remainingByResource].map(([r, n]) => `${r} has ${n} resource instances`).sort();
    failing.set('NamespaceContentRemaining', {
      type: 'NamespaceContentRemaining',
      status: 'True',
      reason: 'SomeResourcesRemain',
      message: `Some resources are remaining: ${parts.join(', ')}`,
    });
  }
  if (remainingByFinalizer.size > 0) {
    const parts = [...remainingByFinalizer].map(([f, n]) => `${f} in ${n} resource instances`).sort();
    failing.set('NamespaceFinalizersRemaining', {
      type: 'NamespaceFinalizersRemaining',
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${parts.join(', ')}`,
    });
  }
  return CONDITION_TYPES.map((type) => failing.get(type) ?? { type, status: 'False', ...OK[type] });
}

/** Merges conditions into a status as updateConditions does: lastTransitionTime moves only with status. */
function mergeConditions(old: unknown, next: Condition[], now: string): JsonObject[] | undefined {
  const previous = Array.isArray(old) ? (old as JsonObject[]) : [];
  const merged = [...previous];
  let changed = false;
  for (const condition of next) {
    const index = merged.findIndex((c) => c.type === condition.type);
    const existing = index >= 0 ? merged[index] : undefined;
    if (existing === undefined) {
      merged.push({ ...condition, lastTransitionTime: now });
      changed = true;
    } else if (
      existing.status !== condition.status ||
      existing.reason !== condition.reason ||
      existing.message !== condition.message
    ) {
      const lastTransitionTime = existing.status !== condition.status ? now : existing.lastTransitionTime;
      merged[index] = { ...condition, lastTransitionTime };
      changed = true;
    }
  }
  return changed ? merged : undefined;
}

/**
 * The namespace controller for one namespace: when it is Terminating, deletes its contents
 * (honouring their finalizers and Pods' grace periods), records what remains in the namespace's
 * deletion conditions; once empty, drops the `kubernetes` spec finalizer and, when no metadata
 * finalizers remain, the namespace itself.
 */
export function finalizeNamespace(core: ApiServerCore, name: string): void {
  const { store, registry } = core;
  const ns = store.get('/namespaces', undefined, name);
  if (!ns) return;
  const meta = metadataOf(ns);
  if (stringAt(meta, 'deletionTimestamp') === undefined) return;
  const byResource = new Map<string, number>();
  const byFinalizer = new Map<string, number>();
  for (const key of store.typeKeys()) {
    const type = registry.byKey(key);
    if (!type?.namespaced) continue;
    for (const obj of store.list(key, name)) {
      if (stringAt(metadataOf(obj), 'deletionTimestamp') === undefined)
        deleteObject(core, type, obj, 'Background', false);
    }
    // What is left after this pass: objects held by finalizers or a grace period.
    for (const obj of store.list(key, name)) {
      const resource = `${type.resource}.${type.group}`;
      byResource.set(resource, (byResource.get(resource) ?? 0) + 1);
      for (const f of stringsAt(metadataOf(obj), 'finalizers'))
        byFinalizer.set(f, (byFinalizer.get(f) ?? 0) + 1);
    }
  }
  const status = objectAt(ns, 'status') ?? {};
  const conditions = mergeConditions(
    status.conditions,
    deletionConditions(byResource, byFinalizer),
    formatTime(core.clock()),
  );
  let current = ns;
  if (conditions !== undefined && !deepEqual(conditions, status.conditions)) {
    current = store.update('/namespaces', { ...ns, status: { ...status, conditions } }, ns);
  }
  if (byResource.size > 0) return;
  const spec = objectAt(current, 'spec') ?? {};
  const specFinalizers = stringsAt(spec, 'finalizers');
  if (specFinalizers.includes('kubernetes')) {
    const next: JsonObject = {
      ...current,
      spec: { ...spec, finalizers: specFinalizers.filter((f) => f !== 'kubernetes') },
    };
    store.update('/namespaces', next, current);
    return;
  }
  if (specFinalizers.length === 0 && stringsAt(meta, 'finalizers').length === 0)
    store.remove('/namespaces', current);
}

/**
 * What kube-controller-manager puts into every active namespace: the `default` ServiceAccount
 * (serviceaccounts controller) and the `kube-root-ca.crt` ConfigMap with the cluster CA
 * (root-ca-cert-publisher); each is recreated when deleted. `caPem` is the server's CA ('' without TLS).
 */
export function ensureNamespaceDefaults(core: ApiServerCore, namespace: string, caPem: string): void {
  const { store } = core;
  const ns = store.get('/namespaces', undefined, namespace);
  if (!ns || stringAt(metadataOf(ns), 'deletionTimestamp') !== undefined) return;
  if (stringAt(objectAt(ns, 'status'), 'phase') === 'Terminating') return;
  const metadata = (name: string, extra: JsonObject = {}): JsonObject => ({
    name,
    namespace,
    uid: crypto.randomUUID(),
    creationTimestamp: formatTime(core.clock()),
    ...extra,
  });
  if (!store.get('/serviceaccounts', namespace, DEFAULT_SERVICE_ACCOUNT)) {
    store.create('/serviceaccounts', {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: metadata(DEFAULT_SERVICE_ACCOUNT),
    });
  }
  const data = { 'ca.crt': caPem };
  const existing = store.get('/configmaps', namespace, ROOT_CA_CONFIGMAP);
  if (!existing) {
    store.create('/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: metadata(ROOT_CA_CONFIGMAP, {
        annotations: { 'kubernetes.io/description': ROOT_CA_DESCRIPTION },
      }),
      data,
    });
  } else if (!deepEqual(existing.data, data)) {
    store.update('/configmaps', { ...existing, data }, existing);
  }
}
