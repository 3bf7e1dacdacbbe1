// What the real-backend specs that run an operator under generated RBAC share (`make test-real`): a
// kubeconfig acting as the operator's ServiceAccount, and the removal of the cluster-scoped RBAC objects
// they applied (a namespace's deletion takes the namespaced ones).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { dump, load } from 'js-yaml';
import { isNotFound } from '../../lib/kube/api-error.js';
import type { ObjectClient } from '../../lib/kube/object-client.js';

/**
 * Writes `dir/kubeconfig`: the admin kubeconfig (KUBECONFIG) whose users act as
 * `system:serviceaccount:<namespace>:<name>` (impersonated through `as`). Returns its path.
 */
export function serviceAccountKubeconfig(dir: string, namespace: string, name: string): string {
  const config = load(readFileSync(process.env.KUBECONFIG ?? '', 'utf8')) as {
    users: { name: string; user: Record<string, unknown> }[];
  };
  for (const u of config.users) u.user.as = `system:serviceaccount:${namespace}:${name}`;
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, dump(config), { mode: 0o600 });
  return path;
}

/** Deletes the ClusterRoles and ClusterRoleBindings among `objects` (those already gone are fine). */
export async function deleteClusterRbac(
  admin: ObjectClient,
  objects: readonly KubernetesObject[],
): Promise<void> {
  for (const o of objects) {
    const plural = { ClusterRole: 'clusterroles', ClusterRoleBinding: 'clusterrolebindings' }[o.kind ?? ''];
    if (plural === undefined) continue;
    await admin
      .delete({ apiVersion: o.apiVersion ?? '', kind: o.kind ?? '', plural, name: o.metadata?.name ?? '' })
      .catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
  }
}
