import type { KubernetesObject } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../lib/kube/api-error.js';
import type { ObjectClient, WatchRequestOptions } from '../../lib/kube/object-client.js';
import type { Logger } from '../../lib/observability/logger.js';
import { Watcher } from '../../lib/watch/watcher.js';

type OnEvent = (type: string, object: KubernetesObject) => void;

function cm(name: string, rv: string): KubernetesObject {
  const o: Record<string, unknown> = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'ns', resourceVersion: rv },
  };
  return o;
}

/** A scripted stand-in for ObjectClient: each watch call runs the next script step. */
function fakeClient(steps: ((opts: WatchRequestOptions, onEvent: OnEvent) => Promise<void>)[]): {
  client: ObjectClient;
  watchCalls: WatchRequestOptions[];
} {
  const watchCalls: WatchRequestOptions[] = [];
  const client = {
    list: () => Promise.resolve({ items: [cm('a', '1')], metadata: { resourceVersion: '10' } }),
    watch: (_ref: unknown, opts: WatchRequestOptions, onEvent: OnEvent) => {
      watchCalls.push(opts);
      const step = steps.shift();
      if (step !== undefined) return step(opts, onEvent);
      // default: a watch that stays open until aborted
      return new Promise<void>((resolve) => {
        opts.signal.addEventListener('abort', () => {
          resolve();
        });
      });
    },
  };
  return { client: client as unknown as ObjectClient, watchCalls };
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger: Logger & { lines: string[] } = {
    lines,
    debug: () => undefined,
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
    child: () => logger,
  };
  return logger;
}

describe('Watcher edge cases (scripted client, fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('asks for bookmarks and a timeout in 300–600 s, and resumes from the list resourceVersion', async () => {
    const { client, watchCalls } = fakeClient([]);
    const w = new Watcher({
      watchList: false, // the paged LIST + watch path (watch-list: spec/watch/watch-list.test.ts)
      client,
      resource: { apiVersion: 'v1', kind: 'ConfigMap' },
      logger: recordingLogger(),
    });
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(watchCalls[0]?.allowWatchBookmarks).toBe(true);
    expect(watchCalls[0]?.resourceVersion).toBe('10');
    expect(watchCalls[0]?.timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(watchCalls[0]?.timeoutSeconds).toBeLessThan(600);
    await w.stop();
  });

  it('ends a watch the server never closes at timeoutSeconds + 30 s and re-watches from the last version', async () => {
    const { client, watchCalls } = fakeClient([
      (_opts, onEvent) => {
        onEvent('MODIFIED', cm('a', '11'));
        return new Promise<void>((resolve) => {
          _opts.signal.addEventListener('abort', () => {
            resolve();
          });
        });
      },
    ]);
    const w = new Watcher({
      watchList: false, // the paged LIST + watch path (watch-list: spec/watch/watch-list.test.ts)
      client,
      resource: { apiVersion: 'v1', kind: 'ConfigMap' },
      logger: recordingLogger(),
      timeoutSeconds: 60,
    });
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(watchCalls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(89_999);
    expect(watchCalls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(watchCalls).toHaveLength(2);
    expect(watchCalls[1]?.resourceVersion).toBe('11');
    await w.stop();
  });

  it('treats a non-410 ERROR event as a failure: logs, counts a restart, backs off, keeps the resume point', async () => {
    const registry = new Registry();
    const logger = recordingLogger();
    const { client, watchCalls } = fakeClient([
      (_opts, onEvent) => {
        onEvent('ERROR', {
          kind: 'Status',
          code: 500,
          reason: 'InternalError',
          message: 'boom',
        } as KubernetesObject);
        return Promise.resolve();
      },
    ]);
    const w = new Watcher({
      watchList: false, // the paged LIST + watch path (watch-list: spec/watch/watch-list.test.ts)
      client,
      resource: { apiVersion: 'v1', kind: 'ConfigMap' },
      logger,
      registry,
      random: () => 0.5,
    });
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(w.lastSyncError).toBeInstanceOf(ApiError);
    expect(logger.lines.some((l) => /^warn list\/watch failed: .*; retrying in 800 ms/.test(l))).toBe(true);
    await vi.advanceTimersByTimeAsync(799);
    expect(watchCalls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(watchCalls).toHaveLength(2);
    expect(watchCalls[1]?.resourceVersion).toBe('10');
    const restarts = (await registry.getMetricsAsJSON()).find(
      (m) => m.name === 'reconcilekit_watch_restarts_total',
    );
    expect(restarts?.values[0]?.value).toBe(1);
    await w.stop();
  });

  it('backs off when the server keeps closing watches at once without events (no spin)', async () => {
    const quick = (): Promise<void> => Promise.resolve();
    const { client, watchCalls } = fakeClient([quick, quick, quick]);
    const w = new Watcher({
      watchList: false, // the paged LIST + watch path (watch-list: spec/watch/watch-list.test.ts)
      client,
      resource: { apiVersion: 'v1', kind: 'ConfigMap' },
      logger: recordingLogger(),
      random: () => 0.5,
    });
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(watchCalls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(800);
    expect(watchCalls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1600);
    expect(watchCalls).toHaveLength(3);
    await w.stop();
  });

  it('a throwing event handler is logged and neither stops the watch nor the other handlers', async () => {
    const logger = recordingLogger();
    const { client } = fakeClient([
      (opts, onEvent) => {
        onEvent('ADDED', cm('b', '12'));
        onEvent('ADDED', cm('c', '13'));
        return new Promise<void>((resolve) => {
          opts.signal.addEventListener('abort', () => {
            resolve();
          });
        });
      },
    ]);
    const w = new Watcher({
      client,
      resource: { apiVersion: 'v1', kind: 'ConfigMap' },
      logger,
      watchList: false,
    });
    const seen: string[] = [];
    w.onEvent(() => {
      throw new Error('handler bug');
    });
    w.onEvent((e) => seen.push(e.object.metadata!.name!));
    w.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(w.store.size).toBe(3);
    expect(logger.lines.filter((l) => l.startsWith('error watch event handler threw'))).toHaveLength(3);
    await w.stop();
  });
});
