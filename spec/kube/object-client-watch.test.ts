import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, isNotFound } from '../../lib/kube/api-error.js';
import { configMap, eventually, startEmbeddedCluster, type EmbeddedCluster } from './embedded-server.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' } as const;

function crd(): KubernetesObject {
  const manifest: Record<string, unknown> = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
  return manifest;
}

describe('ObjectClient.watch and discovery against the embedded API server', () => {
  let cluster: EmbeddedCluster;
  beforeAll(async () => {
    cluster = await startEmbeddedCluster();
  });
  afterAll(async () => {
    await cluster.close();
  });

  it('streams events from a resourceVersion and resolves when its signal aborts', async () => {
    const { client } = cluster;
    const list = await client.list(CM);
    const ac = new AbortController();
    const events: string[] = [];
    const done = client.watch(
      CM,
      { resourceVersion: list.metadata.resourceVersion, signal: ac.signal },
      (type, o) => events.push(`${type} ${o.metadata?.name ?? ''}`),
    );
    await client.create(configMap('w1'));
    await client.delete({ ...CM, name: 'w1' });
    await eventually(() => events.length === 2, 5000, 'two events');
    expect(events).toEqual(['ADDED w1', 'DELETED w1']);
    ac.abort();
    await expect(done).resolves.toBeUndefined();
  });

  it('rejects with the handler error when the event handler throws', async () => {
    const { client } = cluster;
    await client.create(configMap('w2'));
    const ac = new AbortController();
    const bug = new Error('handler bug');
    const done = client.watch(CM, { signal: ac.signal }, () => {
      throw bug;
    });
    await expect(done).rejects.toBe(bug);
    ac.abort();
  });

  it('rejects with an ApiError for an HTTP error on the watch request', async () => {
    const ac = new AbortController();
    const handle = cluster.server.faults.inject({
      verb: 'watch',
      resource: 'configmaps',
      status: 403,
      times: 1,
    });
    const err = await cluster.client
      .watch(CM, { signal: ac.signal }, () => undefined)
      .catch((e: unknown) => e);
    handle.remove();
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(403);
  });

  it('re-discovers a kind whose CRD appeared after the first lookup', async () => {
    const { client } = cluster;
    const ref = { apiVersion: 'example.com/v1', kind: 'Gadget' };
    await expect(client.resolve(ref)).rejects.toSatisfy(isNotFound);
    await client.create(crd());
    let resolved: { plural: string; namespaced: boolean } | undefined;
    await eventually(
      () => {
        void client.resolve(ref).then(
          (r) => (resolved = r),
          () => undefined,
        );
        return resolved !== undefined;
      },
      5000,
      'CRD served',
    );
    expect(resolved).toEqual({ plural: 'gadgets', namespaced: true });
    const gadget: Record<string, unknown> = {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g1', namespace: 'default' },
      spec: { size: 3 },
    };
    await client.create(gadget);
    const got = await client.get<KubernetesObject & { spec?: { size?: number } }>({
      ...ref,
      namespace: 'default',
      name: 'g1',
    });
    expect(got.spec?.size).toBe(3);
  });
});
