import type { KubernetesObject } from '@kubernetes/client-node';
import { isNotFound } from '../kube/api-error.js';
import type { ObjectClient } from '../kube/object-client.js';
import { installCrds } from '../testing/install-crds.js';

const CRD_REF = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

/** What `reconcilekit dev` did with each CRD of its files on a cluster it does not own. */
export interface DevCrdOutcome {
  name: string;
  action: 'created' | 'kept' | 'replaced';
}

/** A CRD on the cluster differs from the project's file, and dev was not asked to replace it. */
export class DevCrdConflictError extends Error {
  override readonly name = 'DevCrdConflictError';
}

/**
 * The first path where `want` says something `have` does not (fields `want` leaves out are not compared:
 * the server defaults them), or undefined when every field `want` sets is set so in `have`.
 */
export function firstDifference(want: unknown, have: unknown, path: string): string | undefined {
  if (Array.isArray(want)) {
    if (!Array.isArray(have) || have.length !== want.length) return path;
    for (const [i, item] of want.entries()) {
      const at = firstDifference(item, have[i], `${path}[${String(i)}]`);
      if (at !== undefined) return at;
    }
    return undefined;
  }
  if (typeof want === 'object' && want !== null) {
    if (typeof have !== 'object' || have === null || Array.isArray(have)) return path;
    for (const [key, value] of Object.entries(want)) {
      const at = firstDifference(value, (have as Record<string, unknown>)[key], `${path}.${key}`);
      if (at !== undefined) return at;
    }
    return undefined;
  }
  return want === have ? undefined : path;
}

/**
 * Installs the project's CRDs on a cluster dev does not own (KUBECONFIG's): a missing CRD is created, one
 * that already says everything the file says is kept as it is, and one that differs is replaced only with
 * `replace` — otherwise a {@link DevCrdConflictError} names the CRD, the first differing field and what to
 * do. Replacing a shared cluster's CRD silently (its status subresource, its schema) breaks every other
 * user of that kind.
 */
export async function installDevCrds(
  client: Pick<ObjectClient, 'create' | 'get' | 'replace' | 'resolve'>,
  crds: readonly KubernetesObject[],
  options: { replace: boolean; source: (crd: KubernetesObject) => string; signal?: AbortSignal },
): Promise<DevCrdOutcome[]> {
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const outcomes: DevCrdOutcome[] = [];
  const install: KubernetesObject[] = [];
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    let stored: KubernetesObject | undefined;
    try {
      stored = await client.get({ ...CRD_REF, name }, signal);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    if (stored === undefined) {
      outcomes.push({ name, action: 'created' });
      install.push(crd);
      continue;
    }
    const differs = firstDifference(
      (crd as { spec?: unknown }).spec,
      (stored as { spec?: unknown }).spec,
      'spec',
    );
    if (differs === undefined) {
      outcomes.push({ name, action: 'kept' });
    } else if (options.replace) {
      outcomes.push({ name, action: 'replaced' });
      install.push(crd);
    } else {
      throw new DevCrdConflictError(
        `CRD ${name} already exists on this cluster and differs from ${options.source(crd)} at ${differs}. ` +
          'dev does not change a cluster’s CRDs behind your back (other users and operators of that kind rely on them): ' +
          `apply it yourself (kubectl apply -f ${options.source(crd)}), use --embedded, or pass --replace-crds to let dev replace it`,
      );
    }
  }
  if (install.length > 0) await installCrds(client, install, signal);
  return outcomes;
}
