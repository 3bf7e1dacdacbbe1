import type { KubernetesObject } from '@kubernetes/client-node';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { isAlreadyExists, isApiError, isNotFound } from './api-error.js';
import type { ObjectClient } from './object-client.js';
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

/**
 * Thrown when the API server refuses the CRD's names (NamesAccepted=False): a conflict to fix by hand, so
 * start() fails with it instead of retrying. An {@link InvalidConfigError}.
 * @category Engine: Framework and ControllerCore
 */
export class CrdNamesNotAcceptedError extends InvalidConfigError {
  override readonly name = 'CrdNamesNotAcceptedError';
}

const CRD_REF = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
};

/**
 * Creates `crd` unless it exists, then waits until its `Established` condition is True (the kind is
 * served). Never deletes or updates an existing CRD. Aborts with `signal`. A CRD the server rejects (400,
 * 422) or whose names it does not accept is an {@link InvalidConfigError}.
 * @category Engine: Framework and ControllerCore
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
      if (isApiError(createErr) && (createErr.code === 400 || createErr.code === 422)) {
        // No retry fixes a CRD the server rejects: fail start() with what to change.
        throw new InvalidConfigError(
          `config.crd ${name} is rejected by the API server: ${createErr.message}; fix config.crd`,
          { cause: createErr },
        );
      }
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
