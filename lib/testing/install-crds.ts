import type { KubernetesObject, V1CustomResourceDefinition } from '@kubernetes/client-node';
import type { ObjectClient } from '../kube/object-client.js';
import { applyManifests } from './manifests.js';
import { waitFor } from './wait-for.js';

/** How long {@link installCrds} waits for each CRD to become Established. */
export const DEFAULT_CRD_ESTABLISHED_TIMEOUT_MS = 10_000;

/** Options of {@link installCrds}. */
export interface InstallCrdsOptions {
  /** Wait this long for each CRD's `Established` condition. Default {@link DEFAULT_CRD_ESTABLISHED_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Aborts the requests and the wait. */
  signal?: AbortSignal;
}

const CRD_REF = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
};

/**
 * Creates (or replaces) the CustomResourceDefinitions and waits until each is `Established`, i.e. its
 * kind is served, so the test can create objects of it at once.
 */
export async function installCrds(
  client: Pick<ObjectClient, 'create' | 'get' | 'replace' | 'resolve'>,
  crds: readonly KubernetesObject[],
  options: InstallCrdsOptions = {},
): Promise<V1CustomResourceDefinition[]> {
  for (const crd of crds) {
    if (crd.kind !== 'CustomResourceDefinition') {
      throw new TypeError(
        `installCrds expects CustomResourceDefinitions; got ${crd.kind ?? 'an object without kind'}`,
      );
    }
  }
  const stored = (await applyManifests(client, crds, options)) as V1CustomResourceDefinition[];
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  return Promise.all(
    stored.map((crd) => {
      const name = crd.metadata?.name ?? '';
      return waitFor(
        async () => {
          const current = await client.get<V1CustomResourceDefinition>({ ...CRD_REF, name }, signal);
          const established = current.status?.conditions?.find((c) => c.type === 'Established');
          return established?.status === 'True' ? current : undefined;
        },
        {
          description: `CRD ${name} Established`,
          timeoutMs: options.timeoutMs ?? DEFAULT_CRD_ESTABLISHED_TIMEOUT_MS,
          ...signal,
        },
      );
    }),
  );
}
