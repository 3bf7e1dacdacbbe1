// Watch protocol: framing, history replay, 410, timeouts, bookmarks, watch-list, selector transitions,
// and slow watchers.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, openWatch, type WatchEvent } from './support/http.js';
import { E2E, startTarget, type Target } from './support/target.js';

let target: Target;
let url: string;
let nsCount = 0;

/** A fresh namespace per test keeps event streams independent. */
async function namespace(): Promise<string> {
  const name = `w${++nsCount}`;
  await api(url, 'POST', '/api/v1/namespaces', { metadata: { name } });
  return name;
}

function cms(ns: string): string {
  return `/api/v1/namespaces/${ns}/configmaps`;
}

function types(events: WatchEvent[]): string[] {
  return events.map((e) => e.type);
}

beforeAll(async () => {
  if (E2E) return; // these checks drive the embedded server over raw HTTP
  target = await startTarget({ bookmarkIntervalMs: 100 });
  url = target.url;
});

afterAll(async () => {
  if (E2E) return;
  await target.close();
});

describe.skipIf(E2E)('watch', () => {
  it('flushes headers at once on a quiet resource', async () => {
    const ns = await namespace();
    const started = Date.now();
    const w = await openWatch(url, `${cms(ns)}?watch=true`);
    expect(Date.now() - started).toBeLessThan(500);
    expect(w.status).toBe(200);
    expect(w.headers['content-type']).toBe('application/json');
    w.close();
  });

  it('replays current objects as ADDED when resourceVersion is unset, then streams changes', async () => {
    const ns = await namespace();
    await api(url, 'POST', cms(ns), { metadata: { name: 'a' } });
    const w = await openWatch(url, `${cms(ns)}?watch=1`);
    await w.waitFor(1);
    await api(url, 'PATCH', `${cms(ns)}/a`, { data: { x: '1' } }, 'application/merge-patch+json');
    await api(url, 'DELETE', `${cms(ns)}/a`);
    const events = await w.waitFor(3);
    expect(types(events)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs[1]).toBeGreaterThan(rvs[0]!);
    expect(rvs[2]).toBeGreaterThan(rvs[1]!);
    w.close();
  });

  it('resumes from a list resourceVersion with exactly the later events, even one older than every event', async () => {
    const ns = await namespace();
    const list = await api(url, 'GET', cms(ns));
    const listRv = list.body.metadata.resourceVersion;
    await api(url, 'POST', cms(ns), { metadata: { name: 'one' } });
    await api(url, 'POST', cms(ns), { metadata: { name: 'two' } });
    const w = await openWatch(url, `${cms(ns)}?watch=true&resourceVersion=${listRv}`);
    const events = await w.waitFor(2);
    expect(events.map((e) => `${e.type}:${e.object.metadata.name}`)).toEqual(['ADDED:one', 'ADDED:two']);
    const fromMiddle = await openWatch(
      url,
      `${cms(ns)}?watch=true&resourceVersion=${events[0]!.object.metadata.resourceVersion}`,
    );
    expect((await fromMiddle.waitFor(1)).map((e) => String(e.object.metadata.name))).toEqual(['two']);
    w.close();
    fromMiddle.close();
  });

  it('sends ERROR 410 Expired and closes for a resourceVersion older than the history', async () => {
    const ns = await namespace();
    const w = await openWatch(url, `${cms(ns)}?watch=true&resourceVersion=1`);
    expect(w.status).toBe(200);
    const [event] = await w.waitFor(1);
    expect(event).toMatchObject({ type: 'ERROR', object: { kind: 'Status', reason: 'Expired', code: 410 } });
    await w.ended;
  });

  it('ends at timeoutSeconds with a final bookmark and sends periodic bookmarks', async () => {
    const ns = await namespace();
    const list = await api(url, 'GET', cms(ns));
    const w = await openWatch(
      url,
      `${cms(ns)}?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=${list.body.metadata.resourceVersion}`,
    );
    const started = Date.now();
    await w.ended;
    expect(Date.now() - started).toBeGreaterThan(800);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(w.events.length).toBeGreaterThan(2);
    for (const e of w.events) {
      expect(e.type).toBe('BOOKMARK');
      expect(Object.keys(e.object.metadata)).toEqual(['resourceVersion']);
      expect(e.object.kind).toBe('ConfigMap');
    }
  });

  it('implements watch-list: initial ADDED events, then the initial-events-end bookmark', async () => {
    const ns = await namespace();
    await api(url, 'POST', cms(ns), { metadata: { name: 'x' } });
    await api(url, 'POST', cms(ns), { metadata: { name: 'y' } });
    const w = await openWatch(
      url,
      `${cms(ns)}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`,
    );
    const events = await w.waitFor(3);
    expect(types(events).slice(0, 3)).toEqual(['ADDED', 'ADDED', 'BOOKMARK']);
    const annotations = events[2]!.object.metadata.annotations;
    expect(annotations['k8s.io/initial-events-end']).toBe('true');
    const blueprint = JSON.parse(
      Buffer.from(annotations['kubernetes.io/initial-events-list-blueprint'], 'base64').toString(),
    );
    expect(blueprint).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    w.close();
    const invalid = await api(url, 'GET', `${cms(ns)}?watch=true&sendInitialEvents=true`);
    expect(invalid.status).toBe(422);
  });

  it('emits selector transitions: ADDED on entering, MODIFIED inside, DELETED with the old content on leaving', async () => {
    const ns = await namespace();
    await api(url, 'POST', cms(ns), { metadata: { name: 's', labels: { tier: 'back' } } });
    const w = await openWatch(url, `${cms(ns)}?watch=true&labelSelector=tier%3Dfront&resourceVersion=0`);
    const patch = (labels: unknown): Promise<unknown> =>
      api(url, 'PATCH', `${cms(ns)}/s`, { metadata: { labels } }, 'application/merge-patch+json');
    await patch({ tier: 'front' });
    await patch({ tier: 'front', extra: 'yes' });
    await patch({ tier: 'back' });
    const events = await w.waitFor(3);
    expect(types(events)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events[2]!.object.metadata.labels.tier).toBe('front');
    expect(Number(events[2]!.object.metadata.resourceVersion)).toBeGreaterThan(
      Number(events[1]!.object.metadata.resourceVersion),
    );
    w.close();
  });

  it('announces a finalizer-held delete as MODIFIED and then a single DELETED', async () => {
    const ns = await namespace();
    await api(url, 'POST', cms(ns), { metadata: { name: 'f', finalizers: ['example.com/f'] } });
    const w = await openWatch(url, `${cms(ns)}?watch=true&resourceVersion=0`);
    await w.waitFor(1);
    const marked = await api(url, 'DELETE', `${cms(ns)}/f`);
    expect(marked.status).toBe(200);
    expect(marked.body.metadata.deletionTimestamp).toBeDefined();
    const cleared = await api(
      url,
      'PATCH',
      `${cms(ns)}/f`,
      [{ op: 'remove', path: '/metadata/finalizers' }],
      'application/json-patch+json',
    );
    expect(cleared.status).toBe(200);
    const events = await w.waitFor(3);
    expect(types(events)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events[1]!.object.metadata.deletionTimestamp).toBeDefined();
    expect(events[2]!.object.metadata.finalizers).toEqual(['example.com/f']);
    expect((await api(url, 'GET', `${cms(ns)}/f`)).status).toBe(404);
    w.close();
  });

  it('sends Table events with column definitions only on the first', async () => {
    const ns = await namespace();
    await api(url, 'POST', cms(ns), { metadata: { name: 't1' } });
    await api(url, 'POST', cms(ns), { metadata: { name: 't2' } });
    const w = await openWatch(url, `${cms(ns)}?watch=true`, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    const events = await w.waitFor(2);
    expect(events[0]!.object.kind).toBe('Table');
    expect(events[0]!.object.columnDefinitions.length).toBeGreaterThan(0);
    expect(events[1]!.object.columnDefinitions).toEqual([]);
    expect(events[1]!.object.rows[0].cells[0]).toBe('t2');
    w.close();
  });
});

describe.skipIf(E2E)('slow watchers', () => {
  it('never block writers: a watcher that stops reading is ended with 410 past its buffer', async () => {
    const small = await startTarget({ watchBufferBytes: 256 * 1024 });
    try {
      const lines: string[] = [];
      let ended = false;
      const req = request(`${small.url}/api/v1/namespaces/default/configmaps?watch=true`);
      const res = await new Promise<import('node:http').IncomingMessage>((resolve) => {
        req.on('response', resolve);
        req.end();
      });
      res.pause();
      const payload = 'x'.repeat(64 * 1024);
      const started = Date.now();
      for (let i = 0; i < 120; i++) {
        const r = await api(small.url, 'POST', '/api/v1/namespaces/default/configmaps', {
          metadata: { name: `big-${i}` },
          data: { payload },
        });
        expect(r.status).toBe(201);
      }
      expect(Date.now() - started).toBeLessThan(10_000);
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        const parts = buffer.split('\n');
        buffer = parts.pop() ?? '';
        lines.push(...parts.filter((l) => l !== ''));
      });
      await new Promise<void>((resolve) => {
        res.on('end', () => {
          ended = true;
          resolve();
        });
        res.resume();
      });
      expect(ended).toBe(true);
      expect(lines.length).toBeLessThan(120);
      const last = JSON.parse(lines[lines.length - 1]!);
      expect(last).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    } finally {
      await small.close();
    }
  });
});
