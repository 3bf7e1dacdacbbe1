import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Cluster, Context, KubeConfig, User } from '@kubernetes/client-node';
import { parseKubeconfig, readKubeConfigFile, type KubeconfigParts } from './kube-config-file.js';
import type { KubeconfigUserExtras } from './kubeconfig-extras.js';
import { KubeConfigLoadError } from './kube-config-load-error.js';
import { LoadedKubeConfig } from './loaded-kube-config.js';

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
function checkUsable(kc: LoadedKubeConfig, file: string, source: string): LoadedKubeConfig {
  const current = kc.getCurrentContext();
  const context = kc.getContextObject(current);
  if (current === '' || context === null) {
    const names = kc.contexts.map((c) => c.name);
    throw new KubeConfigLoadError(
      file,
      current === ''
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
  const tokenFile = kc.userExtras.get(context.user)?.tokenFile;
  if (kc.getCurrentUser() !== null && tokenFile !== undefined && !existsSync(tokenFile)) {
    throw new KubeConfigLoadError(
      file,
      `user "${context.user}" names token-file ${tokenFile}, which does not exist`,
      source,
    );
  }
  return kc;
}

/** kubectl's merge of a KUBECONFIG list: the first file to define a name (or set current-context) wins. */
function merge(parts: readonly KubeconfigParts[]): LoadedKubeConfig {
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, Context>();
  const extras = new Map<string, KubeconfigUserExtras>();
  let currentContext = '';
  for (const part of parts) {
    for (const c of part.clusters) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of part.users) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of part.contexts) if (!contexts.has(c.name)) contexts.set(c.name, c);
    for (const [name, e] of part.extras) if (!extras.has(name)) extras.set(name, e);
    if (currentContext === '') currentContext = part.currentContext;
  }
  return new LoadedKubeConfig(
    [...clusters.values()],
    [...users.values()],
    [...contexts.values()],
    currentContext,
    extras,
  );
}

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The in-cluster configuration, as client-node's `loadFromCluster`: the service's host and port, the service
 * account's CA, its token (read again as it rotates) and namespace.
 */
export function inClusterKubeConfig(env: NodeJS.ProcessEnv = process.env, pathPrefix = ''): LoadedKubeConfig {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '';
  const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https';
  const root = `${pathPrefix}${SERVICE_ACCOUNT}`;
  let namespace: string | undefined;
  try {
    namespace = readFileSync(`${root}/namespace`, 'utf8');
  } catch {
    namespace = undefined;
  }
  return new LoadedKubeConfig(
    [
      {
        name: 'inCluster',
        caFile: `${root}/ca.crt`,
        server: `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`,
        skipTLSVerify: false,
      },
    ],
    [{ name: 'inClusterUser', authProvider: { name: 'tokenFile', config: { tokenFile: `${root}/token` } } }],
    [
      {
        name: 'inClusterContext',
        cluster: 'inCluster',
        user: 'inClusterUser',
        ...(namespace !== undefined ? { namespace } : {}),
      },
    ],
    'inClusterContext',
  );
}

/**
 * Reads the kubeconfig the way kubectl finds it — `KUBECONFIG` (a list of files, merged), then
 * `~/.kube/config`, then the in-cluster service account — without loading `@kubernetes/client-node`. Throws
 * {@link KubeConfigLoadError} for a file that cannot be used and {@link KubeConfigNotFoundError} when there
 * is nothing to read; never falls back to `http://localhost:8080`. An {@link ObjectClient} takes the result
 * as its `kubeConfig`; `toClientNode()` gives client-node's `KubeConfig` of it.
 * @category Kubernetes client
 */
export function readKubeConfig(env: NodeJS.ProcessEnv = process.env): LoadedKubeConfig {
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
    const merged = merge(present.map((file) => readKubeConfigFile(file, 'KUBECONFIG')));
    return checkUsable(merged, present.join(delimiter), 'KUBECONFIG');
  }
  const home = join(env.HOME ?? homedir(), '.kube', 'config');
  if (existsSync(home)) {
    return checkUsable(merge([readKubeConfigFile(home, '~/.kube/config')]), home, '~/.kube/config');
  }
  if (env.KUBERNETES_SERVICE_HOST !== undefined && env.KUBERNETES_SERVICE_HOST !== '') {
    return inClusterKubeConfig(env);
  }
  throw new KubeConfigNotFoundError();
}

/**
 * Kubeconfig text (an embedded server's `kubeconfig`, say) as a {@link LoadedKubeConfig}, checked as a file
 * would be, without loading `@kubernetes/client-node`. `what` names the text in errors.
 */
export function kubeConfigFromText(yaml: string, what = 'kubeconfig text'): LoadedKubeConfig {
  return checkUsable(merge([parseKubeconfig(yaml, what, what, process.cwd())]), what, what);
}

/**
 * Loads the client-node `KubeConfig` the way kubectl finds it: `KUBECONFIG`, then `~/.kube/config`, then
 * the in-cluster service account. Unlike client-node's `loadFromDefault`, it never falls back silently to
 * `http://localhost:8080`: with nothing found it throws {@link KubeConfigNotFoundError}. It also keeps the
 * user fields client-node drops (`token-file` for rotation, `as-groups`, `as-uid`, `as-user-extra`).
 * Loads `@kubernetes/client-node`; the framework's own client reads the same configuration without it.
 * @category Kubernetes client
 */
export function loadKubeConfig(env: NodeJS.ProcessEnv = process.env): KubeConfig {
  return readKubeConfig(env).toClientNode();
}
