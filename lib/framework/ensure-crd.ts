import type { KubernetesObject } from '@kubernetes/client-node';
import { isAlreadyExists, isNotFound } from '../kube/api-error.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { Logger } from '../observability/logger.js';
import { sleep } from '../util/sleep.js';

/** How often the CRD's conditions are polled while waiting for Established. */
export const CRD_POLL_INTERVAL_MS = 100;

interface CrdCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** Thrown when the API server refuses the CRD's names (NamesAccepted=False): a conflict to fix by hand. */
export class CrdNamesNotAcceptedError extends Error {
  override readonly name = 'CrdNamesNotAcceptedError';
}

const CRD_REF = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
};

/**
 * Creates `crd` unless it exists, then waits until its `Established` condition is True (the kind is
 * served). Never deletes or updates an existing CRD. Aborts with `signal`.
 */
export async function ensureCrd(
  client: ObjectClient,
  crd: KubernetesObject,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  const name = crd.metadata?.name ?? '';
  const ref = { ...CRD_REF, name };
  try {
    await client.get(ref, { signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    logger.info('ensuring custom resource definition exists', { crd: name });
    try {
      await client.create({ ...crd, apiVersion: CRD_REF.apiVersion, kind: CRD_REF.kind }, { signal });
    } catch (createErr) {
      if (!isAlreadyExists(createErr)) throw createErr;
    }
  }
  for (;;) {
    const current = await client.get<KubernetesObject & { status?: { conditions?: CrdCondition[] } }>(ref, {
      signal,
    });
    const conditions = current.status?.conditions ?? [];
    const names = conditions.find((c) => c.type === 'NamesAccepted');
    if (names?.status === 'False') {
      throw new CrdNamesNotAcceptedError(
        `CustomResourceDefinition ${name} names not accepted: ${names.message ?? names.reason ?? 'conflict'}; fix spec.names`,
      );
    }
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) {
      logger.info('ensured custom resource definition exists', { crd: name });
      return;
    }
    await sleep(CRD_POLL_INTERVAL_MS, signal);
  }
}
