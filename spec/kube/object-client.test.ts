import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isConnectionError,
  isNotFound,
  isServerError,
} from '../../lib/kube/api-error.js';
import { makeKeepAliveApiClient, makeKeepAliveObjectApi } from '../../lib/kube/keep-alive-api.js';
import { InvalidConfigError } from '../../lib/errors/invalid-config-error.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import {
  configMap,
  startEmbeddedCluster,
  type ConfigMapLike,
  type EmbeddedCluster,
} from './embedded-server.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' } as const;

describe('ObjectClient against the embedded API server', () => {
  let cluster: EmbeddedCluster;
  beforeAll(async () => {
    cluster = await startEmbeddedCluster();
  });
  afterAll(async () => {
    await cluster.close();
  });

  it('resolves plural and scope through discovery', async () => {
    expect(await cluster.client.resolve({ apiVersion: 'v1', kind: 'ConfigMap' })).toEqual({
      plural: 'configmaps',
      namespaced: true,
    });
    expect(await cluster.client.resolve({ apiVersion: 'v1', kind: 'Namespace' })).toEqual({
      plural: 'namespaces',
      namespaced: false,
    });
    await expect(cluster.client.resolve({ apiVersion: 'v1', kind: 'NoSuchKind' })).rejects.toSatisfy(
      isNotFound,
    );
  });

  it('creates, reads, lists, patches (merge, json, apply), replaces and deletes', async () => {
    const { client } = cluster;
    const created = await client.create(configMap('crud', { a: '1' }, { labels: { app: 'crud' } }));
    expect(created.metadata?.uid).toBeTruthy();
    await expect(client.create(configMap('crud'))).rejects.toSatisfy(isAlreadyExists);

    const got = await client.get<ConfigMapLike>({ ...CM, name: 'crud' });
    expect(got.data).toEqual({ a: '1' });

    const merged = await client.patch<typeof got>({ ...CM, name: 'crud' }, { data: { b: '2' } }, 'merge');
    expect(merged.data).toEqual({ a: '1', b: '2' });
    const jsonPatched = await client.patch<typeof got>(
      { ...CM, name: 'crud' },
      [{ op: 'remove', path: '/data/a' }],
      'json',
    );
    expect(jsonPatched.data).toEqual({ b: '2' });
    const applied = await client.patch<typeof got>(
      { ...CM, name: 'crud' },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'crud', namespace: 'default' },
        data: { c: '3' },
      },
      'apply',
      { fieldManager: 'test-apply', force: true },
    );
    expect(applied.data?.c).toBe('3');

    const list = await client.list(CM, { labelSelector: 'app=crud' });
    expect(list.items.map((i) => i.metadata?.name)).toEqual(['crud']);
    expect(list.items[0]?.kind).toBe('ConfigMap');
    expect(list.metadata.resourceVersion).not.toBe('');

    const stale = { ...got, data: { stale: 'yes' } };
    await expect(client.replace(stale)).rejects.toSatisfy(isConflict);
    const replaced = await client.replace({ ...applied, data: { fresh: 'yes' } });
    expect((replaced as typeof got).data).toEqual({ fresh: 'yes' });

    await client.delete({ ...CM, name: 'crud' }, { preconditions: { uid: created.metadata!.uid! } });
    const err = await client.get({ ...CM, name: 'crud' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(isNotFound(err)).toBe(true);
    expect((err as ApiError).reason).toBe('NotFound');
  });

  it('paginates lists with limit and continue', async () => {
    const { client } = cluster;
    for (let i = 0; i < 7; i++) {
      await client.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `page-${i}`, namespace: 'default', labels: { page: 'yes' } },
      });
    }
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await client.list(CM, { labelSelector: 'page=yes', limit: 3, continue: token });
      names.push(...page.items.map((i) => i.metadata!.name!));
      token = page.metadata.continue;
      pages++;
    } while (token !== undefined);
    expect(pages).toBe(3);
    expect(names.sort()).toEqual(Array.from({ length: 7 }, (_, i) => `page-${i}`));
  });

  it('maps injected server errors to ApiError with the Status reason and Retry-After', async () => {
    const handle = cluster.server.faults.inject({
      verb: 'get',
      resource: 'configmaps',
      name: 'faulty',
      status: 503,
      retryAfterSeconds: 7,
    });
    const err = await cluster.client.get({ ...CM, name: 'faulty' }).catch((e: unknown) => e);
    handle.remove();
    expect(isServerError(err)).toBe(true);
    expect((err as ApiError).code).toBe(503);
    expect((err as ApiError).retryAfterSeconds).toBe(7);
  });

  it('reuses one keep-alive connection for sequential requests', async () => {
    const client = new ObjectClient({ kubeConfig: cluster.kubeConfig });
    const sockets = new Set<unknown>();
    const agent = await client.transport.agent();
    const origCreate = agent.createConnection.bind(agent);
    let created = 0;
    agent.createConnection = (...args: Parameters<typeof origCreate>) => {
      created++;
      const socket = origCreate(...args);
      sockets.add(socket);
      return socket;
    };
    for (let i = 0; i < 20; i++) await client.list(CM, { limit: 1 });
    expect(created).toBe(1);
    client.close();
  });

  it('gives client-node KubernetesObjectApi and generated APIs the same keep-alive agent', async () => {
    const objectApi = makeKeepAliveObjectApi(cluster.client);
    const created = await objectApi.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'via-object-api', namespace: 'default' },
      data: { k: 'v' },
    });
    expect(created.metadata.name).toBe('via-object-api');
    const patched = await objectApi.patch(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'via-object-api', namespace: 'default' },
        data: { k2: 'v2' },
      },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    );
    expect((patched as { data?: Record<string, string> }).data).toEqual({ k: 'v', k2: 'v2' });
    const core = makeKeepAliveApiClient(cluster.client, CoreV1Api);
    const cm = await core.readNamespacedConfigMap({ name: 'via-object-api', namespace: 'default' });
    expect(cm.data).toEqual({ k: 'v', k2: 'v2' });
    const merged = await core.patchNamespacedConfigMap(
      { name: 'via-object-api', namespace: 'default', body: { data: { k3: 'v3' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(merged.data?.k3).toBe('v3');
    const missing = await core
      .readNamespacedConfigMap({ name: 'nope', namespace: 'default' })
      .catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
  });
});

describe('ObjectClient connection errors', () => {
  it('rejects with a connection ApiError when nothing listens', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => {
      probe.close(() => {
        r();
      });
    });
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser(
      { name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true },
      { name: 'u', token: 't' },
    );
    const client = new ObjectClient({ kubeConfig: kc });
    const err = await client.get({ ...CM, plural: 'configmaps', name: 'x' }).catch((e: unknown) => e);
    expect(isConnectionError(err)).toBe(true);
    expect((err as ApiError).code).toBe(0);
    client.close();
  });

  it('refuses a plain-http kubeconfig without insecure-skip-tls-verify, with the fix in the message', () => {
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser(
      { name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: false },
      { name: 'u' },
    );
    expect(() => new ObjectClient({ kubeConfig: kc })).toThrow(/insecure-skip-tls-verify/);
    expect(() => new ObjectClient({ kubeConfig: kc })).toThrow(InvalidConfigError);
  });
});
