// Server limits: deep JSON, watch timeouts past the timer range, the global watch memory budget,
// connection limits and header timeouts.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';
import { api, openWatch } from './support/http.js';
import { E2E } from './support/target.js';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe.skipIf(E2E)('request limits', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ headersTimeoutMs: 300, maxConnections: 40 });
  });
  afterAll(() => server.close());

  it('answers JSON nested ~1,900 levels with 400 naming the limit, not 500', async () => {
    const target = await api(server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'deep' },
    });
    expect(target.status).toBe(201);
    for (const method of ['POST', 'PATCH'] as const) {
      const path =
        method === 'POST'
          ? '/api/v1/namespaces/default/configmaps'
          : '/api/v1/namespaces/default/configmaps/deep';
      const res = await api(
        server.url,
        method,
        path,
        { metadata: { name: method === 'POST' ? 'deeper' : 'deep', annotations: nested(1900) } },
        method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
      );
      expect(res.status, method).toBe(400);
      expect(res.body.message).toMatch(/deeper than 1000 levels/);
    }
    const ok = await api(server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'shallow' },
      data: { a: 'b' },
    });
    expect(ok.status).toBe(201);
  });

  it('keeps a watch with timeoutSeconds past the 32-bit timer range open', async () => {
    const watch = await openWatch(
      server.url,
      '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=2147484',
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(watch.isEnded()).toBe(false);
    } finally {
      watch.close();
    }
  });

  it('closes a connection that never finishes its headers (slowloris)', async () => {
    const socket: Socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.resume();
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const closedWithin = await new Promise<number>((resolve) => {
      const started = Date.now();
      socket.on('close', () => {
        resolve(Date.now() - started);
      });
    });
    expect(closedWithin).toBeLessThan(5000);
  });

  it('holds at most maxConnections (closing the longest idle) while serving', async () => {
    const port = Number(new URL(server.url).port);
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 45; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.resume();
        held.push(socket);
      }
      await Promise.all(held.map((s) => new Promise((resolve) => s.once('connect', resolve))));
      const closed = await new Promise<number>((resolve) => {
        setTimeout(() => {
          resolve(held.filter((s) => s.destroyed || s.readableEnded).length);
        }, 300);
      });
      expect(closed).toBeGreaterThanOrEqual(4);
    } finally {
      for (const s of held) s.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await api(server.url, 'GET', '/healthz')).status).toBe(200);
  });
});

describe.skipIf(E2E)('watch memory budget', () => {
  it('closes the watches over their share of the global budget; readers and /healthz carry on', async () => {
    // A per-watch cap far above the budget: what closes the stalled watches here is the global budget.
    const server = await startApiServer({
      watchTotalBufferBytes: 8 * 1024 * 1024,
      watchBufferBytes: 256 * 1024 * 1024,
    });
    const path = '/api/v1/namespaces/default/configmaps';
    const stalled: Socket[] = [];
    try {
      // Watches that never read: raw sockets with a tiny receive window, never resumed.
      const port = Number(new URL(server.url).port);
      for (let i = 0; i < 20; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        await new Promise((resolve) => socket.once('connect', resolve));
        socket.write(`GET ${path}?watch=true HTTP/1.1\r\nHost: x\r\n\r\n`);
        socket.pause();
        stalled.push(socket);
      }
      const reader = await openWatch(server.url, `${path}?watch=true`);
      const big = 'x'.repeat(512 * 1024);
      for (let i = 0; i < 20; i++) {
        const res = await api(server.url, 'POST', path, { metadata: { name: `big-${i}` }, data: { big } });
        expect(res.status).toBe(201);
      }
      await reader.waitFor(20, 10_000);
      expect(reader.isEnded()).toBe(false);
      const started = Date.now();
      expect((await api(server.url, 'GET', '/healthz')).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1000);
      // The stalled watches were cut loose instead of buffering 10 MiB each: once read, their
      // connections end (a watch still open would never end: it has no timeout).
      const ended = await Promise.all(
        stalled.map(
          (s) =>
            new Promise<boolean>((resolve) => {
              const timer = setTimeout(() => {
                resolve(false);
              }, 1500);
              s.once('close', () => {
                clearTimeout(timer);
                resolve(true);
              });
              s.resume();
            }),
        ),
      );
      expect(ended.filter(Boolean).length).toBeGreaterThan(10);
      reader.close();
    } finally {
      for (const s of stalled) s.destroy();
      await server.close();
    }
  });
});
