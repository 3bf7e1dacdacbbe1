// A watcher's fallback to paged LIST on a kube-apiserver that refuses watch-list: its own kube-apiserver
// (make test-real's binaries) started with --feature-gates=WatchList=false, which answers sendInitialEvents
// with 422. The watcher says so once, lists, syncs and watches.
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectClient } from '../../lib/kube/object-client.js';
import type { Logger } from '../../lib/observability/logger.js';
import { startKubeApiServer, type KubeApiServer } from '../../lib/testing/index.js';
import { Watcher } from '../../lib/watch/watcher.js';
import { REAL_BACKEND } from './real-backend.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' };

describe.skipIf(!REAL_BACKEND)('watch-list fallback on kube-apiserver with WatchList off', () => {
  let server: KubeApiServer;
  let client: ObjectClient;
  beforeAll(async () => {
    server = await startKubeApiServer({ apiServerFlags: ['--feature-gates=WatchList=false'] });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(server.kubeconfig);
    client = new ObjectClient({ kubeConfig });
  }, 180_000);
  afterAll(async () => {
    client.close();
    await server.close();
  });

  it('refuses sendInitialEvents with 422, and the watcher lists instead', async () => {
    for (const n of ['a', 'b', 'c']) {
      await client.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `wl-${n}`, namespace: 'default' },
      });
    }
    const lines: string[] = [];
    const logger = {
      debug: () => undefined,
      info: (message: string) => lines.push(message),
      warn: (message: string) => lines.push(message),
      error: (message: string) => lines.push(message),
      child: () => logger,
    } as unknown as Logger;
    const watcher = new Watcher({ client, resource: { ...CM }, logger, pageSize: 2 });
    try {
      watcher.start();
      const deadline = Date.now() + 20_000;
      while (!watcher.synced && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(watcher.synced).toBe(true);
      expect(watcher.initialList).toBe('list');
      expect(
        watcher.store
          .keys()
          .filter((k) => k.startsWith('default/wl-'))
          .sort(),
      ).toEqual(['default/wl-a', 'default/wl-b', 'default/wl-c']);
      expect(lines.filter((l) => l.includes('does not stream initial lists'))).toHaveLength(1);
      await client.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'wl-d', namespace: 'default' },
      });
      const until = Date.now() + 10_000;
      while (watcher.store.get('default/wl-d') === undefined && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(watcher.store.get('default/wl-d')).toBeDefined();
    } finally {
      await watcher.stop();
    }
  });
});
