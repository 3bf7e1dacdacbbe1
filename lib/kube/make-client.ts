import type { KubeConfig } from '@kubernetes/client-node';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import type { WarningHandler } from './api-warnings.js';
import { isKubeConfigNotFound, readKubeConfig } from './kube-config.js';
import type { LoadedKubeConfig } from './loaded-kube-config.js';
import { ObjectClient } from './object-client.js';

/**
 * The framework's client: on `kubeConfig` when given, else on the kubeconfig kubectl would find (read by
 * reconcilekit itself: no client-node is loaded for it).
 * Without any, undefined when `needsApi` is false (a framework fed only through updateFunc), else an
 * InvalidConfigError saying where a configuration is looked for.
 */
export function makeClient(
  name: string,
  kubeConfig: KubeConfig | LoadedKubeConfig | undefined,
  needsApi: boolean,
  warningHandler?: WarningHandler,
): ObjectClient | undefined {
  const userAgent = `reconcilekit/${name}`;
  const warnings = warningHandler === undefined ? {} : { warningHandler };
  if (kubeConfig !== undefined) return new ObjectClient({ kubeConfig, userAgent, ...warnings });
  try {
    return new ObjectClient({ kubeConfig: readKubeConfig(), userAgent, ...warnings });
  } catch (err) {
    if (!isKubeConfigNotFound(err)) throw err;
    if (needsApi) throw new InvalidConfigError(`config.kubeConfig: ${err.message}`, { cause: err });
    return undefined;
  }
}
