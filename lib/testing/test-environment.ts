import { randomBytes } from 'node:crypto';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../apiserver/index.js';
import { ObjectClient } from '../kube/object-client.js';
import { installCrds } from './install-crds.js';
import { readManifests } from './manifests.js';

/** Options of {@link startTestEnvironment}. */
export interface TestEnvironmentOptions {
  /**
   * CustomResourceDefinitions to install before the environment is handed out: objects, or paths of
   * YAML files holding them. Each is `Established` when `startTestEnvironment` resolves. Default: none.
   */
  crds?: readonly (KubernetesObject | string)[];
  /**
   * Run against this cluster instead of starting an embedded API server (e.g. `loadKubeConfig()` when
   * `KUBECONFIG` is set, to run the same tests against kind). Default: an embedded server on 127.0.0.1.
   */
  kubeConfig?: KubeConfig;
  /**
   * Options of the embedded server (e.g. `dataFile`, `clock`); host and port default to 127.0.0.1 and any
   * free port. Ignored with `kubeConfig`. Default: none.
   */
  apiServer?: ApiServerOptions;
  /** Aborts the start-up (server start, CRD installation). */
  signal?: AbortSignal;
}

/** A running API server (embedded or given) with CRDs installed, and what a test needs to talk to it. */
export interface TestEnvironment {
  /** A ready client-node `KubeConfig`: hand it to a `Framework`, or to client-node's own clients. */
  readonly kubeConfig: KubeConfig;
  /** The kubeconfig as YAML (write it to a file for `kubectl --kubeconfig`). */
  readonly kubeconfigYaml: string;
  /** Base URL of the API server. */
  readonly url: string;
  /** reconcilekit's object client over the same connection settings, for arranging and asserting. */
  readonly client: ObjectClient;
  /** Whether this environment started (and will close) an embedded API server. */
  readonly embedded: boolean;
  /** The embedded server (its `faults` inject errors, delays and dropped watches); undefined on a given cluster. */
  readonly apiServer: ApiServer | undefined;
  /** Creates a Namespace with a unique name starting with `prefix` (default `test`) and returns its name. */
  createNamespace(prefix?: string): Promise<string>;
  /** Stops the embedded server (or deletes the created namespaces on a given cluster) and frees sockets. */
  close(): Promise<void>;
}

async function loadCrds(crds: readonly (KubernetesObject | string)[]): Promise<KubernetesObject[]> {
  const objects: KubernetesObject[] = [];
  for (const crd of crds) objects.push(...(typeof crd === 'string' ? await readManifests(crd) : [crd]));
  return objects;
}

/**
 * Starts what an operator test needs: an embedded Kubernetes-compatible API server on 127.0.0.1 (any free
 * port) — or the cluster of `options.kubeConfig` — with the given CRDs installed and Established, a
 * ready `KubeConfig` and an {@link ObjectClient}. Always `close()` it (in `afterAll`/`afterEach`).
 */
export async function startTestEnvironment(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  options.signal?.throwIfAborted();
  const server =
    options.kubeConfig === undefined ? await startApiServer({ host: '127.0.0.1', port: 0 }) : undefined;
  const kubeConfig = options.kubeConfig ?? new KubeConfig();
  if (server !== undefined) kubeConfig.loadFromString(server.kubeconfig);
  const client = new ObjectClient({ kubeConfig });
  const namespaces: string[] = [];
  const close = async (): Promise<void> => {
    if (server === undefined) {
      await Promise.allSettled(
        namespaces.map((name) =>
          client.delete({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', name }),
        ),
      );
    }
    client.close();
    await server?.close();
  };
  try {
    const crds = await loadCrds(options.crds ?? []);
    if (crds.length > 0)
      await installCrds(client, crds, options.signal === undefined ? {} : { signal: options.signal });
  } catch (e) {
    await close();
    throw e;
  }
  return {
    kubeConfig,
    kubeconfigYaml: server?.kubeconfig ?? kubeConfig.exportConfig(),
    url: server?.url ?? kubeConfig.getCurrentCluster()?.server ?? '',
    client,
    embedded: server !== undefined,
    apiServer: server,
    async createNamespace(prefix = 'test'): Promise<string> {
      const name = `${prefix}-${randomBytes(4).toString('hex')}`;
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      namespaces.push(name);
      return name;
    },
    close,
  };
}
