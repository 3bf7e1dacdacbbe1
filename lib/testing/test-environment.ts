import { randomBytes } from 'node:crypto';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import {
  CertificateAuthority,
  startApiServer,
  type ApiServer,
  type ApiServerOptions,
} from '../apiserver/index.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { loadKubeConfig } from '../kube/kube-config.js';
import { ObjectClient } from '../kube/object-client.js';
import {
  startKubeApiServer,
  type KubeApiServer,
  type KubeApiServerOptions,
} from './kube-apiserver-backend.js';
import { installCrds } from './install-crds.js';
import { readManifests } from './manifests.js';
import { WebhookServer } from '../webhooks/webhook-server.js';
import { registerWebhooks, webhookManifests } from '../webhooks/webhook-manifests.js';
import type { WebhookHandler } from '../webhooks/webhook-handler.js';

/** The environment variable that picks the backend when `options.backend` is not given. */
export const TEST_BACKEND_ENV = 'RECONCILEKIT_TEST_BACKEND';

/**
 * Where a test environment runs: `embedded` (reconcilekit's API server in this process), `kube-apiserver`
 * (etcd + kube-apiserver from `KUBEBUILDER_ASSETS`, started for this environment), or `kubeconfig` (the
 * cluster that `KUBECONFIG` names, e.g. one shared kube-apiserver or kind; like envtest's
 * USE_EXISTING_CLUSTER).
 */
export type TestBackend = 'embedded' | 'kube-apiserver' | 'kubeconfig';

const BACKENDS: readonly TestBackend[] = ['embedded', 'kube-apiserver', 'kubeconfig'];

/** The backend named by `RECONCILEKIT_TEST_BACKEND` (default `embedded`); a typo is an InvalidConfigError. */
export function testBackendFromEnv(env: NodeJS.ProcessEnv = process.env): TestBackend {
  const value = env[TEST_BACKEND_ENV];
  if (value === undefined || value === '') return 'embedded';
  if ((BACKENDS as readonly string[]).includes(value)) return value as TestBackend;
  throw new InvalidConfigError(`${TEST_BACKEND_ENV}=${value} is not one of ${BACKENDS.join(', ')}`);
}

/** Options of {@link startTestEnvironment}. */
export interface TestEnvironmentOptions {
  /**
   * Which API server to run against. Default: `$RECONCILEKIT_TEST_BACKEND`, else `embedded`; ignored when
   * `kubeConfig` is given.
   */
  backend?: TestBackend;
  /**
   * Serve the embedded server over HTTPS (generated CA; the kubeConfig trusts it), so tests exercise the
   * real TLS transport path. Default true. The kube-apiserver backend always uses TLS.
   */
  tls?: boolean;
  /** Options of the kube-apiserver backend (assets directory, ports, extra flags). Default none. */
  kubeApiServer?: KubeApiServerOptions;
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
  /**
   * The operator's webhook handlers (reconcilekit/webhooks): served on 127.0.0.1 (any free port) with a
   * certificate of a test CA, and registered with the API server — webhook configurations and CRD
   * conversions pointing at that URL with the test CA as caBundle — on every backend, so admission and
   * conversion run in tests with no certificates or tunnels to set up. Default none.
   */
  webhooks?: readonly WebhookHandler[];
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
  /** The backend it runs on (`kubeconfig` also when `options.kubeConfig` was given). */
  readonly backend: TestBackend;
  /** The etcd + kube-apiserver pair of the `kube-apiserver` backend; undefined on the others. */
  readonly kubeApiServer: KubeApiServer | undefined;
  /** The embedded server (its `faults` inject errors, delays and dropped watches); undefined on a given cluster. */
  readonly apiServer: ApiServer | undefined;
  /** The webhook server of `options.webhooks`; undefined without them. */
  readonly webhookServer: WebhookServer | undefined;
  /** Creates a Namespace with a unique name starting with `prefix` (default `test`) and returns its name. */
  createNamespace(prefix?: string): Promise<string>;
  /**
   * Stops the embedded server or the etcd + kube-apiserver pair (or, on a given cluster, deletes the
   * namespaces it created) and frees sockets.
   */
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
  const backend: TestBackend =
    options.kubeConfig !== undefined ? 'kubeconfig' : (options.backend ?? testBackendFromEnv());
  const server =
    backend === 'embedded'
      ? await startApiServer({
          host: '127.0.0.1',
          port: 0,
          ...(options.tls === false ? {} : { tls: true }),
          ...options.apiServer,
        })
      : undefined;
  const real =
    backend === 'kube-apiserver'
      ? await startKubeApiServer({
          ...options.kubeApiServer,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        })
      : undefined;
  const kubeConfig = options.kubeConfig ?? (backend === 'kubeconfig' ? loadKubeConfig() : new KubeConfig());
  const generated = server?.kubeconfig ?? real?.kubeconfig;
  if (generated !== undefined) kubeConfig.loadFromString(generated);
  const client = new ObjectClient({ kubeConfig });
  const namespaces: string[] = [];
  let webhookServer: WebhookServer | undefined;
  const webhookConfigName = `test-webhooks-${randomBytes(4).toString('hex')}`;
  const close = async (): Promise<void> => {
    if (webhookServer !== undefined) {
      await Promise.allSettled(
        ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'].map((kind) =>
          client.delete({ apiVersion: 'admissionregistration.k8s.io/v1', kind, name: webhookConfigName }),
        ),
      );
      await webhookServer.stop();
    }
    if (backend === 'kubeconfig') {
      await Promise.allSettled(
        namespaces.map((name) =>
          client.delete({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', name }),
        ),
      );
    }
    client.close();
    await server?.close();
    await real?.close();
  };
  try {
    const crds = await loadCrds(options.crds ?? []);
    if (crds.length > 0)
      await installCrds(client, crds, options.signal === undefined ? {} : { signal: options.signal });
    if (options.webhooks !== undefined && options.webhooks.length > 0) {
      const ca = new CertificateAuthority('reconcilekit-test-webhook-ca');
      webhookServer = new WebhookServer({
        handlers: options.webhooks,
        certificate: ca.issue({ commonName: 'webhook', hosts: ['127.0.0.1'], usages: ['server'] }),
        host: '127.0.0.1',
        port: 0,
      });
      const url = await webhookServer.start(options.signal);
      await registerWebhooks(
        client,
        webhookManifests(options.webhooks, { name: webhookConfigName, target: { url }, caBundle: ca.cert }),
      );
    }
  } catch (e) {
    await close();
    throw e;
  }
  return {
    kubeConfig,
    kubeconfigYaml: generated ?? kubeConfig.exportConfig(),
    url: server?.url ?? real?.url ?? kubeConfig.getCurrentCluster()?.server ?? '',
    client,
    embedded: server !== undefined,
    backend,
    kubeApiServer: real,
    apiServer: server,
    webhookServer,
    async createNamespace(prefix = 'test'): Promise<string> {
      const name = `${prefix}-${randomBytes(4).toString('hex')}`;
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      namespaces.push(name);
      return name;
    },
    close,
  };
}
