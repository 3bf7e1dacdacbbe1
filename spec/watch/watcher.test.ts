import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startApiServer } from '../../lib/apiserver/index.js';
import { isConnectionError } from '../../lib/kube/api-error.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { silentLogger } from '../../lib/observability/logger-silent.js';
import { Informer } from '../../lib/watch/informer.js';
import type { WatchEvent } from '../../lib/watch/watch-event.js';
import { Watcher } from '../../lib/watch/watcher.js';
import type { WatcherOptions } from '../../lib/watch/watcher-options.js';
import {
  configMap,
  eventually,
  startEmbeddedCluster,
  type ConfigMapLike,
  type EmbeddedCluster,
} from '../kube/embedded-server.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' } as const;
const FAST_BACKOFF = { initialMs: 20, maxMs: 100 };

async function metric(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
  const v = m?.values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
  return v?.value ?? Number.NaN;
}

describe('Watcher against the embedded API server', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(
    serverOptions: Parameters<typeof startEmbeddedCluster>[0] = {},
    extra: Partial<WatcherOptions<ConfigMapLike>> = {},
  ): Promise<{
    cluster: EmbeddedCluster;
    watcher: Watcher<ConfigMapLike>;
    events: WatchEvent<ConfigMapLike>[];
    registry: Registry;
  }> {
    const cluster = await startEmbeddedCluster(serverOptions);
    cleanups.push(() => cluster.close());
    const registry = new Registry();
    const watcher = new Watcher<ConfigMapLike>({
      client: cluster.client,
      resource: { ...CM },
      logger: silentLogger(),
      registry,
      pageSize: 2,
      backoff: FAST_BACKOFF,
      ...extra,
    });
    const events: WatchEvent<ConfigMapLike>[] = [];
    watcher.onEvent((e) => events.push(e));
    cleanups.push(() => watcher.stop());
    return { cluster, watcher, events, registry };
  }

  it('lists with pagination, syncs, then streams changes with the old object', async () => {
    const { cluster, watcher, events, registry } = await setup();
    for (const n of ['a', 'b', 'c', 'd', 'e']) await cluster.client.create(configMap(n, { v: '0' }));
    let syncedCalls = 0;
    watcher.onSynced(() => syncedCalls++);
    watcher.start();
    await eventually(() => watcher.synced, 5000, 'sync');
    expect(syncedCalls).toBe(1);
    expect(watcher.store.keys().sort()).toEqual([
      'default/a',
      'default/b',
      'default/c',
      'default/d',
      'default/e',
    ]);
    expect(events.filter((e) => e.type === 'ADDED')).toHaveLength(5);

    await cluster.client.patch({ ...CM, name: 'a' }, { data: { v: '1' } }, 'merge');
    await cluster.client.delete({ ...CM, name: 'b' });
    await cluster.client.create(configMap('f'));
    await eventually(() => events.length === 8, 5000, 'three live events');
    const [modified, deleted, added] = events.slice(5);
    expect(modified?.type).toBe('MODIFIED');
    expect(modified?.old?.data).toEqual({ v: '0' });
    expect(modified?.object.data).toEqual({ v: '1' });
    expect(deleted?.type).toBe('DELETED');
    expect(deleted?.object.metadata?.name).toBe('b');
    expect(added?.type).toBe('ADDED');
    expect(watcher.store.get('default/a')?.data).toEqual({ v: '1' });
    expect(watcher.store.get('default/b')).toBeUndefined();
    expect(await metric(registry, 'reconcilekit_watch_relists_total', { resource: 'v1/ConfigMap' })).toBe(1);
    expect(await metric(registry, 'reconcilekit_watch_events_total', { type: 'MODIFIED' })).toBe(1);
    expect(await metric(registry, 'reconcilekit_watch_synced', {})).toBe(1);
  });

  it('resumes from the last resourceVersion when the server drops the stream, without relisting', async () => {
    const { cluster, watcher, events, registry } = await setup();
    await cluster.client.create(configMap('x'));
    watcher.start();
    await eventually(() => watcher.synced, 5000, 'sync');
    const drop = cluster.server.faults.inject({
      verb: 'watch',
      resource: 'configmaps',
      dropWatchAfterMs: 30,
      times: 3,
    });
    cleanups.push(async () => {
      drop.remove();
    });
    for (let i = 0; i < 10; i++) {
      await cluster.client.patch({ ...CM, name: 'x' }, { data: { i: String(i) } }, 'merge');
      await new Promise((r) => setTimeout(r, 15));
    }
    await eventually(() => watcher.store.get('default/x')?.data?.i === '9', 5000, 'last change seen');
    const modified = events.filter((e) => e.type === 'MODIFIED').map((e) => e.object.data?.i);
    expect(modified).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(await metric(registry, 'reconcilekit_watch_relists_total', {})).toBe(1);
  });

  it('relists after 410 Expired and synthesises DELETED for objects deleted meanwhile', async () => {
    const { cluster, watcher, events, registry } = await setup();
    await cluster.client.create(configMap('keep'));
    await cluster.client.create(configMap('gone'));
    watcher.start();
    await eventually(() => watcher.synced, 5000, 'sync');
    // Keep the watcher away (watch answers 500) while an object is deleted, then make its resume expire.
    const outage = cluster.server.faults.inject({ verb: 'watch', resource: 'configmaps', status: 500 });
    const drop = cluster.server.faults.inject({
      verb: 'watch',
      resource: 'configmaps',
      dropWatchAfterMs: 0,
      times: 1,
    });
    await eventually(() => watcher.lastSyncError !== undefined, 5000, 'watch failing');
    drop.remove();
    await cluster.client.delete({ ...CM, name: 'gone' });
    await cluster.client.patch({ ...CM, name: 'keep' }, { data: { changed: 'yes' } }, 'merge');
    cluster.server.faults.inject({ verb: 'watch', resource: 'configmaps', expireWatch: true, times: 1 });
    outage.remove();
    await eventually(() => watcher.store.get('default/gone') === undefined, 5000, 'synthesised delete');
    const del = events.find((e) => e.type === 'DELETED');
    expect(del?.object.metadata?.name).toBe('gone');
    expect(del?.old?.metadata?.name).toBe('gone');
    await eventually(() => watcher.store.get('default/keep')?.data?.changed === 'yes', 5000, 'relist update');
    // The relist's MODIFIED carries the version from before the outage (its empty data map dropped by the
    // server, as kube's omitempty drops it).
    const modified = events.find((e) => e.type === 'MODIFIED');
    expect(modified?.old?.metadata?.name).toBe('keep');
    expect(modified?.old?.data?.changed).toBeUndefined();
    expect(await metric(registry, 'reconcilekit_watch_relists_total', {})).toBe(2);
    expect(await metric(registry, 'reconcilekit_watch_restarts_total', {})).toBeGreaterThanOrEqual(1);
  });

  it('advances the resume point through bookmarks on a quiet resource', async () => {
    const { cluster, watcher, registry } = await setup({ bookmarkIntervalMs: 50 });
    watcher.start();
    await eventually(() => watcher.synced, 5000, 'sync');
    const listRv = Number(watcher.lastResourceVersion);
    // A write elsewhere advances the server's resourceVersion; only a bookmark can tell this watcher.
    await cluster.client.create(configMap('elsewhere', {}, {}, 'kube-system'));
    await eventually(() => Number(watcher.lastResourceVersion) > listRv, 5000, 'bookmark');
    expect(await metric(registry, 'reconcilekit_watch_events_total', { type: 'BOOKMARK' })).toBeGreaterThan(
      0,
    );
    expect(watcher.store.size).toBe(0);
  });

  it('retries list errors (500) with backoff until it syncs', async () => {
    const cluster = await startEmbeddedCluster();
    cleanups.push(() => cluster.close());
    cluster.server.faults.inject({ verb: 'list', resource: 'configmaps', status: 500, times: 3 });
    const registry = new Registry();
    const informer = new Informer<ConfigMapLike>({
      client: cluster.client,
      resource: { ...CM },
      logger: silentLogger(),
      registry,
      backoff: FAST_BACKOFF,
      watchList: false, // the failures are injected into LIST
    });
    cleanups.push(() => informer.stop());
    informer.start();
    await informer.waitForSync(undefined, 5000);
    expect(await metric(registry, 'reconcilekit_watch_restarts_total', {})).toBe(3);
    expect(informer.watcher.lastSyncError).toBeUndefined();
  });

  it('keeps retrying while the API server is down (ECONNREFUSED) and syncs once it is up', async () => {
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
      { name: 'u' },
    );
    const client = new ObjectClient({ kubeConfig: kc });
    const registry = new Registry();
    const informer = new Informer<ConfigMapLike>({
      client,
      resource: { ...CM, plural: 'configmaps' },
      logger: silentLogger(),
      registry,
      backoff: FAST_BACKOFF,
    });
    cleanups.push(async () => {
      await informer.stop();
      client.close();
    });
    const added: string[] = [];
    informer.on('add', (o) => added.push(o.metadata!.name!));
    informer.start();
    await eventually(() => isConnectionError(informer.watcher.lastSyncError), 5000, 'connection error');
    await expect(informer.waitForSync(undefined, 50)).rejects.toThrow(/not synced/);
    const server = await startApiServer({ host: '127.0.0.1', port });
    cleanups.push(() => server.close());
    const seedKc = new KubeConfig();
    seedKc.loadFromString(server.kubeconfig);
    const seeder = new ObjectClient({ kubeConfig: seedKc });
    await seeder.create(configMap('late'));
    seeder.close();
    await informer.waitForSync(undefined, 5000);
    await eventually(() => added.includes('late'), 5000, 'object after reconnect');
    expect(await metric(registry, 'reconcilekit_watch_restarts_total', {})).toBeGreaterThanOrEqual(2);
  });

  it('stop() ends the open watch and leaves nothing running', async () => {
    const { watcher } = await setup();
    watcher.start();
    await eventually(() => watcher.synced, 5000, 'sync');
    await watcher.stop();
    expect(watcher.synced).toBe(true);
  });
});

describe('Informer', () => {
  it('calls add, update(old, new) and delete handlers and waits for sync', async () => {
    const cluster = await startEmbeddedCluster();
    const informer = new Informer<ConfigMapLike>({
      client: cluster.client,
      resource: { ...CM },
      logger: silentLogger(),
    });
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata!.name!}`));
    informer.on('update', (o, n) => seen.push(`update ${o.data?.v ?? '-'}→${n.data?.v ?? '-'}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata!.name!}`));
    try {
      await cluster.client.create(configMap('i', { v: '1' }));
      informer.start();
      await informer.waitForSync();
      expect(informer.synced).toBe(true);
      await cluster.client.patch({ ...CM, name: 'i' }, { data: { v: '2' } }, 'merge');
      await cluster.client.delete({ ...CM, name: 'i' });
      await eventually(() => seen.length === 3, 5000, 'three callbacks');
      expect(seen).toEqual(['add i', 'update 1→2', 'delete i']);
      expect(informer.store.size).toBe(0);
    } finally {
      await informer.stop();
      await cluster.close();
    }
  });

  it('waitForSync rejects when its signal aborts', async () => {
    const cluster = await startEmbeddedCluster();
    const informer = new Informer({ client: cluster.client, resource: { ...CM }, logger: silentLogger() });
    const ac = new AbortController();
    ac.abort(new Error('shutting down'));
    await expect(informer.waitForSync(ac.signal)).rejects.toThrow('shutting down');
    await cluster.close();
  });
});
