import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { clientNode } from './client-node.js';
import { readKubeConfigFile } from './kube-config-file.js';
import { recordKubeconfigExtras } from './kubeconfig-extras.js';
import { KubeConfigLoadError } from './kube-config-load-error.js';

export { KubeConfigLoadError, isKubeConfigLoadError } from './kube-config-load-error.js';

/**
 * Thrown by {@link loadKubeConfig} when neither a kubeconfig file nor an in-cluster service account exists.
 * @category Kubernetes client
 */
export class KubeConfigNotFoundError extends Error {
  override readonly name = 'KubeConfigNotFoundError';
  constructor() {
    super(
      'no Kubernetes configuration found: set KUBECONFIG to a kubeconfig file, create ~/.kube/config, ' +
        'run inside a cluster (KUBERNETES_SERVICE_HOST), or pass config.kubeConfig explicitly',
    );
  }
}

/**
 * True for a {@link KubeConfigNotFoundError}.
 * @category Kubernetes client
 */
export function isKubeConfigNotFound(e: unknown): e is KubeConfigNotFoundError {
  return e instanceof KubeConfigNotFoundError;
}

/** A kubeconfig without a usable current context is an error naming the file, not a request to localhost:8080. */
function checkUsable(kc: KubeConfig, file: string, source: string): KubeConfig {
  const current = kc.getCurrentContext();
  if (current === '' || kc.getContextObject(current) === null) {
    const names = kc.getContexts().map((c) => c.name);
    throw new KubeConfigLoadError(
      file,
      current === '' || (current as string | undefined) === undefined
        ? `has no current-context (set one: kubectl config use-context ${names[0] ?? '<context>'})`
        : `names current-context "${current}", which it does not define (defined: ${names.join(', ') || 'none'})`,
      source,
    );
  }
  if (kc.getCurrentCluster() === null) {
    throw new KubeConfigLoadError(
      file,
      `context "${current}" names a cluster the file does not define`,
      source,
    );
  }
  return kc;
}

/**
 * Loads the client-node `KubeConfig` the way kubectl finds it: `KUBECONFIG`, then `~/.kube/config`, then
 * the in-cluster service account. Unlike client-node's `loadFromDefault`, it never falls back silently to
 * `http://localhost:8080`: with nothing found it throws {@link KubeConfigNotFoundError}. It also keeps the
 * user fields client-node drops (`token-file` for rotation, `as-groups`, `as-uid`, `as-user-extra`).
 * @category Kubernetes client
 */
export function loadKubeConfig(env: NodeJS.ProcessEnv = process.env): KubeConfig {
  const kc = new (clientNode().KubeConfig)();
  const fromEnv = env.KUBECONFIG;
  if (fromEnv !== undefined && fromEnv !== '') {
    // As kubectl: a list of files, merged, the first file's current-context winning; missing ones skipped.
    const files = fromEnv.split(delimiter).filter((f) => f !== '');
    const present = files.filter((f) => existsSync(f));
    if (present.length === 0) {
      throw new KubeConfigLoadError(
        files.join(delimiter),
        files.length === 1 ? 'does not exist' : 'none of these files exists',
        'KUBECONFIG',
      );
    }
    const [first, ...rest] = present;
    const merged = readKubeConfigFile(first ?? '', 'KUBECONFIG');
    for (const file of rest) merged.mergeConfig(readKubeConfigFile(file, 'KUBECONFIG'), true);
    for (const file of present) recordKubeconfigExtras(merged, readFileSync(file, 'utf8'), dirname(file));
    return checkUsable(merged, present.join(delimiter), 'KUBECONFIG');
  }
  const home = join(env.HOME ?? homedir(), '.kube', 'config');
  if (existsSync(home)) {
    const fromHome = readKubeConfigFile(home, '~/.kube/config');
    recordKubeconfigExtras(fromHome, readFileSync(home, 'utf8'), dirname(home));
    return checkUsable(fromHome, home, '~/.kube/config');
  }
  if (env.KUBERNETES_SERVICE_HOST !== undefined && env.KUBERNETES_SERVICE_HOST !== '') {
    kc.loadFromCluster();
    return kc;
  }
  throw new KubeConfigNotFoundError();
}
