import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/observability/logger-silent.js';
import type { WatchEvent } from '../../lib/watch/watch-event.js';
import { Watcher } from '../../lib/watch/watcher.js';
import { configMap, eventually, startEmbeddedCluster, type ConfigMapLike } from '../kube/embedded-server.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' } as const;

async function metric(registry: Registry, name: string): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
  return m?.values.reduce((sum, v) => sum + v.value, 0) ?? 0;
}

// R4b of the reliability scenarios: `lastSyncError` (what Framework.ready and /readyz read) must clear
// as soon as a watch that resumes from the last resourceVersion is accepted — not when that (healthy,
// minutes-long) watch ends, and not only once an event or bookmark arrives.
describe('Watcher readiness after a hiccup the watch resumes from', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('clears lastSyncError right after the resumed watch is answered 200, with no event and no relist', async () => {
    const cluster = await startEmbeddedCluster();
    cleanups.push(() => cluster.close());
    await cluster.client.create(configMap('a', { v: '0' }));
    const registry = new Registry();
    const watcher = new Watcher<ConfigMapLike>({
      client: cluster.client,
      resource: { ...CM },
      logger: silentLogger(),
      registry,
      backoff: { initialMs: 50, maxMs: 100, jitter: 0 },
      // Long, quiet watches: nothing but the accepted request can clear the error.
      timeoutSeconds: 60,
      bookmarks: false,
    });
    const events: WatchEvent<ConfigMapLike>[] = [];
    watcher.onEvent((e) => events.push(e));
    cleanups.push(() => watcher.stop());
    watcher.start();
    await eventually(() => watcher.synced, 5_000, 'sync');
    const rv = watcher.lastResourceVersion;
    const relists = await metric(registry, 'reconcilekit_watch_relists_total');
    const eventCount = events.length;

    // The open watch is dropped; the reconnects are refused twice (503), then accepted.
    cluster.server.faults.inject({ verb: 'watch', resource: 'configmaps', status: 503, times: 2 });
    const drop = cluster.server.faults.inject({ verb: 'watch', resource: 'configmaps', dropWatchAfterMs: 1 });
    await eventually(() => watcher.lastSyncError !== undefined, 5_000, 'the reconnect fails');
    drop.remove();
    const failedAt = Date.now();

    await eventually(() => watcher.lastSyncError === undefined, 3_000, 'error cleared by the accepted watch');
    // Two backoff steps (≤ 100 ms each) plus request time; far below the 60 s the watch stays open.
    expect(Date.now() - failedAt).toBeLessThan(1_500);
    expect(events.length).toBe(eventCount);
    expect(watcher.lastResourceVersion).toBe(rv);
    expect(await metric(registry, 'reconcilekit_watch_relists_total')).toBe(relists);
    expect(await metric(registry, 'reconcilekit_watch_restarts_total')).toBeGreaterThanOrEqual(1);

    // Still healthy a while later (the watch stays open), and it is live: a change arrives.
    await new Promise((r) => setTimeout(r, 300));
    expect(watcher.lastSyncError).toBeUndefined();
    await cluster.client.create(configMap('b', { v: '1' }));
    await eventually(() => events.some((e) => e.type === 'ADDED' && e.object.metadata?.name === 'b'));
    expect(watcher.lastSyncError).toBeUndefined();
  });
});
