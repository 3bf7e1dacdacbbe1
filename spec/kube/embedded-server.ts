import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../../lib/apiserver/index.js';
import { ObjectClient } from '../../lib/kube/object-client.js';

/** An embedded API server on 127.0.0.1:0 with a KubeConfig and an ObjectClient pointing at it. */
export interface EmbeddedCluster {
  server: ApiServer;
  kubeConfig: KubeConfig;
  client: ObjectClient;
  close(): Promise<void>;
}

export async function startEmbeddedCluster(options: ApiServerOptions = {}): Promise<EmbeddedCluster> {
  const server = await startApiServer({ host: '127.0.0.1', port: 0, ...options });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(server.kubeconfig);
  const client = new ObjectClient({ kubeConfig });
  return {
    server,
    kubeConfig,
    client,
    async close() {
      client.close();
      await server.close();
    },
  };
}

/** Polls `check` every 10 ms until it returns true, or fails after `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A ConfigMap-shaped object. */
export type ConfigMapLike = KubernetesObject & { data?: Record<string, string> };

/** Builds a ConfigMap (plain JSON, as it goes over the wire). */
export function configMap(
  name: string,
  data: Record<string, string> = {},
  meta: Record<string, unknown> = {},
  namespace = 'default',
): ConfigMapLike {
  const obj: Record<string, unknown> = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...meta },
    data,
  };
  return obj;
}
