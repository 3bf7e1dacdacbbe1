import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUnauthorized } from '../../lib/kube/api-error.js';
import { makeKeepAliveApiClient } from '../../lib/kube/keep-alive-api.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { startEmbeddedCluster, type EmbeddedCluster } from './embedded-server.js';

describe('credentials from the kubeconfig', () => {
  let cluster: EmbeddedCluster;
  beforeAll(async () => {
    cluster = await startEmbeddedCluster({ token: 's3cret' });
  });
  afterAll(async () => {
    await cluster.close();
  });

  const ref = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' } as const;

  it('sends the bearer token of the kubeconfig user (ObjectClient and client-node APIs)', async () => {
    await expect(cluster.client.list(ref)).resolves.toBeDefined();
    const core = makeKeepAliveApiClient(cluster.client, CoreV1Api);
    await expect(core.listNamespacedConfigMap({ namespace: 'default' })).resolves.toBeDefined();
  });

  it('surfaces a rejected token as Unauthorized', async () => {
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser(
      { name: 'c', server: cluster.server.url, skipTLSVerify: true },
      { name: 'u', token: 'wrong' },
    );
    const client = new ObjectClient({ kubeConfig: kc });
    const err = await client.list(ref).catch((e: unknown) => e);
    client.close();
    expect(isUnauthorized(err)).toBe(true);
  });
});
