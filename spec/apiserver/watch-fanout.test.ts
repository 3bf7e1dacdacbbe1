// A large event to many slow watches is handed out in slices: other requests are answered in between, and
// every watch still gets each event once, in order (issue 14: /healthz under a watch flood).
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';
import { api, openWatch } from './support/http.js';

const PATH = '/api/v1/namespaces/default/configmaps';
let server: ApiServer;
const stalled: Socket[] = [];

beforeAll(async () => {
  server = await startApiServer();
});

afterAll(async () => {
  for (const socket of stalled) socket.destroy();
  await server.close();
});

/** A watch whose client never reads (its events queue in the server). */
async function stalledWatch(): Promise<void> {
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`GET ${PATH}?watch=true HTTP/1.1\r\nHost: x\r\n\r\n`);
  socket.pause();
  stalled.push(socket);
}

describe('watch fan-out', () => {
  it('a 1 MiB event to 150 stalled watches: /healthz is answered before the fan-out reaches the last watch; each watch gets every event once, in order', async () => {
    for (let i = 0; i < 150; i++) await stalledWatch();
    const last = await openWatch(server.url, `${PATH}?watch=true`);
    // Let the server register every watch (headers are flushed before the watch joins the hub).
    await api(server.url, 'GET', PATH);
    const big = 'x'.repeat(1024 * 1024 - 200);
    const order: string[] = [];
    const lastGotFirst = last.waitFor(1, 60_000).then(() => order.push('last watch got big-0'));

    const created = await api(server.url, 'POST', PATH, { metadata: { name: 'big-0' }, data: { big } });
    expect(created.status).toBe(201);
    const rv = (created.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    // Opened while the fan-out of big-0 may still be under way: it starts after big-0, so must not get it.
    const later = await openWatch(server.url, `${PATH}?watch=true&resourceVersion=${rv}`);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    order.push('/healthz answered');
    await lastGotFirst;
    // Delivered in one go, the whole fan-out (150 MiB) would be queued before the create was even answered.
    expect(order).toEqual(['/healthz answered', 'last watch got big-0']);

    const second = await api(server.url, 'POST', PATH, { metadata: { name: 'small-1' }, data: { a: 'b' } });
    expect(second.status).toBe(201);
    const lastEvents = await last.waitFor(2, 60_000);
    const laterEvents = await later.waitFor(1, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lastEvents.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
      'ADDED big-0',
      'ADDED small-1',
    ]);
    expect(laterEvents.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED small-1']);
    last.close();
    later.close();
  }, 120_000);
});
