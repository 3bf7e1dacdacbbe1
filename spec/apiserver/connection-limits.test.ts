// Connection and in-flight limits: clients without credentials never lock out clients with them, slow
// bodies are cut by the request timeout, in-flight limits answer 429 with Retry-After as kube's do, and
// the server refuses to start open where it should not.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiServerConfigError,
  startApiServer,
  type ApiServer,
  type ApiServerOptions,
} from '../../lib/apiserver/index.js';
import { bearerMatches } from '../../lib/apiserver/tls/authentication.js';
import { freshRequest, startConnectionFlood } from './support/connection-flood.js';
import { E2E } from './support/target.js';

const TOKEN = 'a-token';

/** A raw connection that sends headers announcing a body, then one byte per `everyMs`. */
function trickle(port: number, token: string | undefined, everyMs: number): Socket & { received: string } {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }) as Socket & { received: string };
  socket.received = '';
  socket.on('error', () => undefined);
  socket.on('data', (d: Buffer) => (socket.received += d.toString()));
  socket.on('connect', () => {
    socket.write(
      'POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `${token === undefined ? '' : `Authorization: Bearer ${token}\r\n`}Content-Length: 100000\r\n\r\n{`,
    );
  });
  const timer = setInterval(() => {
    if (socket.destroyed) clearInterval(timer);
    else socket.write(' ');
  }, everyMs);
  return socket;
}

function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      resolve(false);
    }, ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe.skipIf(E2E)('connection limits', () => {
  let server: ApiServer | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await server?.close();
    server = undefined;
  });
  const start = async (options: ApiServerOptions): Promise<{ url: string; port: number }> => {
    server = await startApiServer(options);
    return { url: server.url, port: Number(new URL(server.url).port) };
  };

  it('keeps answering authenticated clients while unauthenticated ones hold more connections than the cap', async () => {
    // The attack shape at a tenth of the size: 420 connections polling /healthz and 20 trickling
    // bodies against a cap of 400 (the soak runs 4,200 + 200 against the default 4,096).
    const { url, port } = await start({ token: TOKEN, maxConnections: 400 });
    const flood = await startConnectionFlood({
      port,
      held: 420,
      trickling: 20,
      pollMs: 1000,
      trickleMs: 1000,
    });
    try {
      const results = [];
      for (let i = 0; i < 20; i++) {
        results.push(
          await freshRequest(`${url}/api/v1/namespaces/default/configmaps`, {
            token: TOKEN,
            timeoutMs: 8000,
          }),
        );
      }
      expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
      // The attacker still holds connections (it is not simply disconnected): as many as the cap allows.
      expect(flood.stats().open).toBeGreaterThan(300);
      // A public probe is still answered too.
      expect((await freshRequest(`${url}/healthz`)).status).toBe(200);
    } finally {
      await flood.stop();
    }
  });

  it('closes unauthenticated connections, never authenticated ones, to make room', async () => {
    const { url, port } = await start({ token: TOKEN, maxConnections: 30 });
    // Ten keep-alive connections that authenticated, then idle.
    const authenticated: Socket[] = [];
    for (let i = 0; i < 10; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.resume();
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(`GET /api HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
      authenticated.push(socket);
      sockets.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Forty without credentials, opened after them (so the authenticated ones are the longest idle).
    const anonymous: Socket[] = [];
    for (let i = 0; i < 40; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      socket.resume();
      anonymous.push(socket);
      sockets.push(socket);
      await new Promise((resolve) => socket.once('connect', resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(authenticated.filter((s) => s.destroyed || s.readableEnded)).toHaveLength(0);
    expect(anonymous.filter((s) => s.destroyed || s.readableEnded).length).toBeGreaterThanOrEqual(20);
    expect((await freshRequest(`${url}/api`, { token: TOKEN })).status).toBe(200);
  });

  it('cuts a body trickled past requestTimeoutMs with 408 and closes the connection, with or without a token', async () => {
    const { port } = await start({ token: TOKEN, requestTimeoutMs: 1000, headersTimeoutMs: 500 });
    const withToken = trickle(port, TOKEN, 100);
    const without = trickle(port, undefined, 100);
    sockets.push(withToken, without);
    // Node checks the timeouts once a second: closed well within 3 s of the 1 s limit.
    expect(await closedWithin(withToken, 4000)).toBe(true);
    expect(await closedWithin(without, 4000)).toBe(true);
    expect(withToken.received).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(without.received).toMatch(/^HTTP\/1\.1 401 Unauthorized/);
  });

  it('answers writes past maxMutatingRequestsInFlight with 429, Retry-After: 1 and kube’s text; probes and watches are not counted', async () => {
    const { url, port } = await start({ maxMutatingRequestsInFlight: 2, maxRequestsInFlight: 1 });
    // Two writes whose bodies are still arriving hold both write slots.
    const slow = [trickle(port, undefined, 200), trickle(port, undefined, 200)];
    sockets.push(...slow);
    const watch = request(`${url}/api/v1/namespaces/default/configmaps?watch=true`, { agent: false });
    watch.on('error', () => undefined);
    watch.end();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await freshRequest(`${url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      body: JSON.stringify({ metadata: { name: 'refused' } }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.text).toBe('Too many requests, please try again later.\n');
    // Reads have their own limit (1 here), and the open watch does not take it.
    expect((await freshRequest(`${url}/api/v1/namespaces/default/configmaps`)).status).toBe(200);
    expect((await freshRequest(`${url}/healthz`)).status).toBe(200);
    for (const s of slow) s.destroy();
    watch.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const accepted = await freshRequest(`${url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      body: JSON.stringify({ metadata: { name: 'accepted' } }),
    });
    expect(accepted.status).toBe(201);
  });

  it('never refuses system:masters (the token user) for in-flight limits, as kube', async () => {
    const { url, port } = await start({ token: TOKEN, maxMutatingRequestsInFlight: 1 });
    const slow = trickle(port, TOKEN, 200);
    sockets.push(slow);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const res = await freshRequest(`${url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      token: TOKEN,
      body: JSON.stringify({ metadata: { name: 'admin-write' } }),
    });
    expect(res.status).toBe(201);
  });
});

describe.skipIf(E2E)('refusing to start open', () => {
  it('refuses an empty token', async () => {
    await expect(startApiServer({ token: '' })).rejects.toThrow(ApiServerConfigError);
    await expect(startApiServer({ token: '' })).rejects.toThrow(/token is empty/);
  });

  it('refuses a non-loopback host without authentication unless insecure', async () => {
    await expect(startApiServer({ host: '0.0.0.0' })).rejects.toThrow(/not loopback.*insecure: true/);
    await expect(startApiServer({ host: '10.1.2.3' })).rejects.toThrow(ApiServerConfigError);
    const local = await startApiServer({ host: 'localhost' });
    await local.close();
  });

  it('compares bearer tokens whatever their length, without throwing', () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches('Bearer a-toke', TOKEN)).toBe(false);
    expect(bearerMatches(`Bearer ${TOKEN}x`, TOKEN)).toBe(false);
    expect(bearerMatches(undefined, TOKEN)).toBe(false);
    expect(bearerMatches('Bearer ', '')).toBe(true); // the server never runs with an empty token
  });
});
