import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/observability/logger-silent.js';
import type { WatchEvent } from '../../lib/watch/watch-event.js';
import { Watcher } from '../../lib/watch/watcher.js';
import {
  configMap,
  eventually,
  startEmbeddedCluster,
  type ConfigMapLike,
  type EmbeddedCluster,
} from '../kube/embedded-server.js';

// A large initial list is applied to the store in chunks, yielding to the event loop between them: a timer
// set while it is applied fires before it is done, and the list's semantics (order, the events after a
// watch-list's end mark, resourceVersion, stop) stay as they were.
const CM = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' } as const;
const N = 2_000;
const name = (i: number): string => `cm-${String(i).padStart(5, '0')}`;

describe('Watcher applies a large list in chunks', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function seeded(): Promise<EmbeddedCluster> {
    const cluster = await startEmbeddedCluster();
    cleanups.push(() => cluster.close());
    const all = Array.from({ length: N }, (_, i) => i);
    for (let i = 0; i < N; i += 50) {
      await Promise.all(
        all.slice(i, i + 50).map((j) => cluster.client.create(configMap(name(j), { n: '0' }))),
      );
    }
    return cluster;
  }

  function watch(
    cluster: EmbeddedCluster,
    watchList: boolean,
    replaceChunkSize: number,
  ): { watcher: Watcher<ConfigMapLike>; events: WatchEvent<ConfigMapLike>[] } {
    const watcher = new Watcher<ConfigMapLike>({
      client: cluster.client,
      resource: { ...CM },
      logger: silentLogger(),
      watchList,
      replaceChunkSize,
      pageSize: 500,
    });
    const events: WatchEvent<ConfigMapLike>[] = [];
    watcher.onEvent((e) => events.push(e));
    cleanups.push(() => watcher.stop());
    return { watcher, events };
  }

  for (const watchList of [false, true]) {
    it(`lets a timer set during the list run before the list is applied (${watchList ? 'watch-list' : 'paged LIST'})`, async () => {
      const cluster = await seeded();
      const { watcher, events } = watch(cluster, watchList, 100);
      let firedAt: number | undefined;
      let syncedAt: number | undefined;
      watcher.onEvent(() => {
        if (events.length === 1) {
          setTimeout(() => {
            firedAt = events.length;
          }, 0);
        }
      });
      watcher.onSynced(() => {
        syncedAt = events.length;
      });
      watcher.start();
      await eventually(() => watcher.synced && firedAt !== undefined, 10_000, 'sync');
      expect(watcher.initialList).toBe(watchList ? 'watch-list' : 'list');
      // In one synchronous loop the timer could only fire after the N-th event.
      expect(firedAt).toBeLessThan(N);
      expect(syncedAt).toBe(N);
      // Order and content as before: every object once, ADDED, in the list's (name) order.
      expect(events.every((e) => e.type === 'ADDED')).toBe(true);
      expect(events.map((e) => e.object.metadata?.name)).toEqual(
        Array.from({ length: N }, (_, i) => name(i)),
      );
      expect(watcher.store.size).toBe(N);
      expect(watcher.lastResourceVersion).toMatch(/^\d+$/);
    });
  }

  it('holds a watch-list’s later events until the initial events are applied, then delivers them in order', async () => {
    const cluster = await seeded();
    const { watcher, events } = watch(cluster, true, 1);
    const last = name(N - 1);
    let patchedAt: number | undefined;
    let patchedRv: string | undefined;
    watcher.onEvent(() => {
      if (events.length !== 1) return;
      // A change, made while the list is applied, to an object the list has not reached yet.
      void cluster.client.patch({ ...CM, name: last }, { data: { n: 'changed' } }, 'merge').then((o) => {
        patchedAt = events.length;
        patchedRv = o.metadata?.resourceVersion;
      });
    });
    watcher.start();
    await eventually(
      () => watcher.store.get(`default/${last}`)?.data?.n === 'changed',
      10_000,
      'the change after the list',
    );
    expect(watcher.initialList).toBe('watch-list');
    // The write answered while the list was still being applied (the case the waiting covers).
    expect(patchedAt).toBeLessThan(N);
    // The list's N ADDEDs first, then the change, with the old (listed) object.
    expect(events.slice(0, N).every((e) => e.type === 'ADDED')).toBe(true);
    const change = events[N];
    expect(change?.type).toBe('MODIFIED');
    expect(change?.object.metadata?.name).toBe(last);
    expect(change?.old?.data?.n).toBe('0');
    expect(events).toHaveLength(N + 1);
    expect(BigInt(watcher.lastResourceVersion ?? '0')).toBeGreaterThanOrEqual(BigInt(patchedRv ?? 'x'));
  });

  it('stops in the middle of a list: stop() resolves, nothing more is applied, not synced', async () => {
    const cluster = await seeded();
    const { watcher, events } = watch(cluster, false, 10);
    let stopping: Promise<void> | undefined;
    watcher.onEvent(() => {
      if (events.length === 100) stopping = watcher.stop();
    });
    watcher.start();
    await eventually(() => stopping !== undefined, 10_000, 'the list to start');
    await stopping;
    const applied = events.length;
    expect(applied).toBeLessThan(N);
    expect(watcher.synced).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(events).toHaveLength(applied);
  });
});
