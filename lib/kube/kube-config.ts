import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { recordKubeconfigExtras } from './kubeconfig-extras.js';

/** Thrown by {@link loadKubeConfig} when neither a kubeconfig file nor an in-cluster service account exists. */
export class KubeConfigNotFoundError extends Error {
  override readonly name = 'KubeConfigNotFoundError';
  constructor() {
    super(
      'no Kubernetes configuration found: set KUBECONFIG to a kubeconfig file, create ~/.kube/config, ' +
        'run inside a cluster (KUBERNETES_SERVICE_HOST), or pass config.kubeConfig explicitly',
    );
  }
}

/** True for a {@link KubeConfigNotFoundError}. */
export function isKubeConfigNotFound(e: unknown): e is KubeConfigNotFoundError {
  return e instanceof KubeConfigNotFoundError;
}

/**
 * Loads the client-node `KubeConfig` the way kubectl finds it: `KUBECONFIG`, then `~/.kube/config`, then
 * the in-cluster service account. Unlike client-node's `loadFromDefault`, it never falls back silently to
 * `http://localhost:8080`: with nothing found it throws {@link KubeConfigNotFoundError}. It also keeps the
 * user fields client-node drops (`token-file` for rotation, `as-groups`, `as-uid`, `as-user-extra`).
 */
export function loadKubeConfig(env: NodeJS.ProcessEnv = process.env): KubeConfig {
  const kc = new KubeConfig();
  const fromEnv = env.KUBECONFIG;
  if (fromEnv !== undefined && fromEnv !== '') {
    kc.loadFromDefault();
    for (const file of fromEnv.split(delimiter).filter((f) => f !== '' && existsSync(f))) {
      recordKubeconfigExtras(kc, readFileSync(file, 'utf8'), dirname(file));
    }
    return kc;
  }
  const home = join(env.HOME ?? homedir(), '.kube', 'config');
  if (existsSync(home)) {
    kc.loadFromFile(home);
    recordKubeconfigExtras(kc, readFileSync(home, 'utf8'), dirname(home));
    return kc;
  }
  if (env.KUBERNETES_SERVICE_HOST !== undefined && env.KUBERNETES_SERVICE_HOST !== '') {
    kc.loadFromCluster();
    return kc;
  }
  throw new KubeConfigNotFoundError();
}
