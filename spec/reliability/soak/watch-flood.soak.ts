import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startApiServer } from '../../../lib/apiserver/index.js';
import { recordFigures } from '../support/figures.js';

describe('soak: slow-watcher flood', () => {
  it('2,000 non-reading watches + 100 writes of 1 MiB: RSS under a bound, /healthz answered throughout (time recorded)', async () => {
    const server = await startApiServer();
    const path = '/api/v1/namespaces/default/configmaps';
    const port = Number(new URL(server.url).port);
    const sockets: Socket[] = [];
    const rssBefore = process.memoryUsage().rss;
    let rssMax = rssBefore;
    let healthMaxMs = 0;
    try {
      for (let i = 0; i < 2000; i++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        await new Promise((resolve) => socket.once('connect', resolve));
        socket.write(`GET ${path}?watch=true HTTP/1.1\r\nHost: x\r\n\r\n`);
        socket.pause();
        sockets.push(socket);
      }
      const big = 'x'.repeat(1024 * 1024 - 200);
      for (let i = 0; i < 100; i++) {
        const res = await fetch(server.url + path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ metadata: { name: `big-${i}` }, data: { big } }),
        });
        expect(res.status).toBe(201);
        await res.arrayBuffer();
        const started = performance.now();
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
        healthMaxMs = Math.max(healthMaxMs, performance.now() - started);
        rssMax = Math.max(rssMax, process.memoryUsage().rss);
      }
    } finally {
      for (const s of sockets) s.destroy();
      await server.close();
    }
    const figures = {
      watches: 2000,
      writes: 100,
      rssBeforeMiB: Math.round(rssBefore / 2 ** 20),
      rssMaxMiB: Math.round(rssMax / 2 ** 20),
      healthMaxMs: Math.round(healthMaxMs),
    };
    recordFigures('watch-flood', figures);
    // The documented bound: the 256 MiB watch budget plus the store (100 MiB) plus the process.
    expect(figures.rssMaxMiB - figures.rssBeforeMiB).toBeLessThan(768);
  });
});
