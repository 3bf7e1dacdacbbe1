import { isNotFound } from '../../lib/kube/api-error.js';
import type { ObjectClient } from '../../lib/kube/object-client.js';

// Whether this run targets the real kube-apiserver of `make test-real` (scripts/test-real.mjs sets both).
export const REAL_BACKEND =
  process.env.RECONCILEKIT_TEST_BACKEND === 'kubeconfig' && (process.env.KUBECONFIG ?? '') !== '';

/** What the specs leave behind in a namespace of a shared server, besides their own kind. */
const LEFTOVERS = [
  { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' },
  { apiVersion: 'v1', kind: 'Secret', plural: 'secrets' },
  { apiVersion: 'v1', kind: 'Event', plural: 'events' },
  { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases' },
] as const;

/**
 * Leaves a shared server (`make test-real`) clean for the next test: every object of `primary` in any
 * namespace goes, its finalizers removed first so nothing waits on a stopped operator; then the
 * ConfigMaps, Secrets, Events and Leases of `namespace`.
 */
export async function cleanUpSharedServer(
  client: ObjectClient,
  primary: { apiVersion: string; kind: string; plural: string },
  namespace = 'default',
): Promise<void> {
  const gone = (e: unknown): void => {
    if (!isNotFound(e)) throw e;
  };
  const objects = await client.list({ ...primary, namespace: undefined });
  await Promise.all(
    objects.items.map(async (o) => {
      const at = { ...primary, namespace: o.metadata?.namespace ?? namespace, name: o.metadata?.name ?? '' };
      await client.patch(at, { metadata: { finalizers: null } }, 'merge').catch(gone);
      await client.delete(at).catch(gone);
    }),
  );
  for (const kind of LEFTOVERS) {
    const list = await client.list({ ...kind, namespace });
    await Promise.all(
      list.items.map((o) => client.delete({ ...kind, namespace, name: o.metadata?.name ?? '' }).catch(gone)),
    );
  }
}
