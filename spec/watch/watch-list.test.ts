// Watch-list: the watcher's initial list streamed through one watch (sendInitialEvents=true, ended by the
// k8s.io/initial-events-end bookmark) that then goes on as the watch; paged LIST where the server refuses it.
// The first block runs on the embedded server and, under make test-real, on kube-apiserver 1.34 (WatchList on
// by default); the fallback on kube-apiserver with the gate off is spec/real/watch-list-fallback.real.test.ts.
import type { KubernetesObject } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ObjectClient } from '../../lib/kube/object-client.js';
import type { Logger } from '../../lib/observability/logger.js';
import { InformerCache } from '../../lib/watch/informer-cache.js';
import { Watcher } from '../../lib/watch/watcher.js';
import { REAL_BACKEND } from '../real/real-backend.js';
import { startHarness, type Harness } from '../crud/harness.js';
import {
  configMap,
  eventually,
  startEmbeddedCluster,
  type EmbeddedCluster,
} from '../kube/embedded-server.js';

const prefix = `rk-wl-${Date.now().toString(36)}`;
const CM = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' };
const source = { ...CM, labelSelector: `app=${prefix}` };

async function metric(registry: Registry, name: string): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
  return m?.values[0]?.value ?? Number.NaN;
}

function recordingLogger(lines: string[]): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: (message: string) => lines.push(message),
    warn: (message: string) => lines.push(message),
    error: (message: string) => lines.push(message),
    child: () => logger,
  };
  return logger;
}

const create = (client: ObjectClient, name: string, data: Record<string, string> = {}) =>
  client.create(configMap(`${prefix}-${name}`, data, { labels: { app: prefix } }));

describe('watch-list', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    const left = await h.client.list(CM, { labelSelector: `app=${prefix}` });
    for (const o of left.items)
      await h.client.delete({ ...CM, name: o.metadata?.name ?? '' }).catch(() => undefined);
    await h.close();
  });

  it('streams the initial list, then watches on the same stream', async () => {
    for (const n of ['a', 'b', 'c']) await create(h.client, n, { v: n });
    // On the embedded server every LIST fails: the watcher can only sync through the watch-list.
    const noList = REAL_BACKEND
      ? undefined
      : h.server.faults.inject({
          verb: 'list',
          resource: 'configmaps',
          status: 500,
          times: 1000,
        });
    const informers = new InformerCache({ client: h.client });
    try {
      const informer = informers.acquire(source);
      await informer.waitForSync(undefined, 10_000);
      expect(informer.watcher.initialList).toBe('watch-list');
      expect(informer.store.keys().sort()).toEqual(['a', 'b', 'c'].map((n) => `default/${prefix}-${n}`));
      expect(informer.watcher.lastResourceVersion).toMatch(/^\d+$/);
      await create(h.client, 'd');
      await h.client.patch({ ...CM, name: `${prefix}-a` }, { data: { v: 'changed' } }, 'merge');
      await eventually(
        () =>
          informer.store.get(`default/${prefix}-d`) !== undefined &&
          (informer.store.get(`default/${prefix}-a`) as { data?: { v?: string } }).data?.v === 'changed',
        10_000,
        'the changes after the initial events',
      );
    } finally {
      noList?.remove();
      await informers.stop();
    }
  });

  it('streams metadata-only initial lists too', async () => {
    await create(h.client, 'm', { v: 'x'.repeat(100) });
    const informers = new InformerCache({ client: h.client });
    try {
      const informer = informers.acquire({ ...source, metadataOnly: true });
      await informer.waitForSync(undefined, 10_000);
      expect(informer.watcher.initialList).toBe('watch-list');
      const cached = informer.store.get(`default/${prefix}-m`) as KubernetesObject & { data?: unknown };
      expect(cached.kind).toBe('ConfigMap');
      expect(cached.data).toBeUndefined();
    } finally {
      await informers.stop();
    }
  });

  it('lists with paged LISTs when watchList is false', async () => {
    for (const n of ['a', 'b', 'c']) await create(h.client, n);
    const informers = new InformerCache({ client: h.client, watchList: false });
    try {
      const informer = informers.acquire(source);
      await informer.waitForSync(undefined, 10_000);
      expect(informer.watcher.initialList).toBe('list');
      expect(informer.store.size).toBe(3);
    } finally {
      await informers.stop();
    }
  });
});

describe.skipIf(REAL_BACKEND)('watch-list on the embedded server: relist and fallback', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function cluster(watchList: boolean): Promise<EmbeddedCluster> {
    const c = await startEmbeddedCluster({ watchList });
    cleanups.push(() => c.close());
    return c;
  }

  function watcher(c: EmbeddedCluster, lines: string[], registry = new Registry()): Watcher {
    const w = new Watcher({
      client: c.client,
      resource: { ...source },
      logger: recordingLogger(lines),
      registry,
      pageSize: 2,
      timeoutSeconds: 1,
      backoff: { initialMs: 20, maxMs: 100 },
    });
    cleanups.push(() => w.stop());
    return w;
  }

  it('relists through a watch-list after 410 Gone, with DELETED for what went meanwhile', async () => {
    const c = await cluster(true);
    for (const n of ['a', 'b']) await create(c.client, n);
    const registry = new Registry();
    const lines: string[] = [];
    const w = watcher(c, lines, registry);
    const deleted: string[] = [];
    w.onEvent((e) => {
      if (e.type === 'DELETED') deleted.push(e.object.metadata?.name ?? '');
    });
    w.start();
    await eventually(() => w.synced, 5_000, 'sync');
    // The next resumed watch expires; meanwhile b goes: the relist must report it gone.
    c.server.faults.inject({ verb: 'watch', resource: 'configmaps', expireWatch: true, times: 1 });
    await c.client.delete({ ...CM, name: `${prefix}-b` });
    await eventually(() => deleted.includes(`${prefix}-b`), 10_000, 'DELETED for b');
    await eventually(() => w.store.size === 1, 5_000, 'the store without b');
    expect(w.initialList).toBe('watch-list');
    expect(await metric(registry, 'reconcilekit_watch_relists_total')).toBeGreaterThanOrEqual(1);
    expect(lines.filter((l) => l.includes('does not stream initial lists'))).toEqual([]);
  });

  it('falls back to paged LIST on a server that refuses watch-list (422), once and for good', async () => {
    const c = await cluster(false);
    for (const n of ['a', 'b', 'c']) await create(c.client, n);
    const lines: string[] = [];
    const w = watcher(c, lines);
    w.start();
    await eventually(() => w.synced, 5_000, 'sync');
    expect(w.initialList).toBe('list');
    expect(w.store.size).toBe(3);
    expect(lines.filter((l) => l.includes('does not stream initial lists'))).toHaveLength(1);
    // A relist after 410 lists again without asking for a watch-list.
    c.server.faults.inject({ verb: 'watch', resource: 'configmaps', expireWatch: true, times: 1 });
    await create(c.client, 'd');
    await eventually(() => w.store.size === 4, 10_000, 'd after the relist');
    expect(lines.filter((l) => l.includes('does not stream initial lists'))).toHaveLength(1);
    expect(w.lastSyncError).toBeUndefined();
  });
});
