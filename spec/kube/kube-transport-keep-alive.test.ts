// The shared agent's kept-alive connections against a server that closes them: an idle connection is
// closed by the client before the server's idle timeout, and a GET that a closing connection cut is sent
// once more on another connection, while a write is not repeated.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/kube/api-error.js';
import { loadedKubeConfigFromYaml } from '../../lib/kube/kubeconfig-extras.js';
import { KubeTransport } from '../../lib/kube/kube-transport.js';

interface Probe {
  server: Server;
  transport: KubeTransport;
  /** Requests the server received, with the connection each came on. */
  received: { method: string; connection: number }[];
  connections: number;
  closedConnections: number;
}

const open: Probe[] = [];

/** A server that cuts the connection (no answer) of every request numbered in `cut` (1-based, per connection). */
async function probe(cut: Set<number>, idleSocketTimeoutMs?: number): Promise<Probe> {
  const p: Probe = {
    server: createServer(),
    transport: undefined as unknown as KubeTransport,
    received: [],
    connections: 0,
    closedConnections: 0,
  };
  const ids = new WeakMap<Socket, { id: number; requests: number }>();
  p.server.on('connection', (socket: Socket) => {
    p.connections += 1;
    ids.set(socket, { id: p.connections, requests: 0 });
    socket.on('close', () => (p.closedConnections += 1));
  });
  p.server.on('request', (req, res) => {
    const conn = ids.get(req.socket)!;
    conn.requests += 1;
    p.received.push({ method: req.method ?? '', connection: conn.id });
    req.resume();
    req.on('end', () => {
      if (cut.has(conn.requests)) {
        req.socket.destroy(); // the server closes the connection as the request arrives
        return;
      }
      res.setHeader('Content-Type', 'application/json');
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
  const { port } = p.server.address() as AddressInfo;
  p.transport = new KubeTransport({
    kubeConfig: loadedKubeConfigFromYaml(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'c', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } },
        ],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    ),
    ...(idleSocketTimeoutMs === undefined ? {} : { idleSocketTimeoutMs }),
  });
  open.push(p);
  return p;
}

afterEach(async () => {
  for (const p of open.splice(0)) {
    p.transport.close();
    p.server.closeAllConnections();
    await new Promise((resolve) => p.server.close(resolve));
  }
});

describe('KubeTransport keep-alive connections', () => {
  it('sends a GET cut on a kept-alive connection once more, on a new connection', async () => {
    const p = await probe(new Set([2]));
    expect(await p.transport.request({ method: 'GET', path: '/a' })).toEqual({ ok: true });
    expect(await p.transport.request({ method: 'GET', path: '/b' })).toEqual({ ok: true });
    expect(p.received).toEqual([
      { method: 'GET', connection: 1 },
      { method: 'GET', connection: 1 }, // cut
      { method: 'GET', connection: 2 }, // the same GET again
    ]);
  });

  it('does not repeat a write cut on a kept-alive connection: it fails as a connection error', async () => {
    const p = await probe(new Set([2]));
    await p.transport.request({ method: 'GET', path: '/a' });
    const failed = await p.transport.request({ method: 'POST', path: '/b', body: { x: 1 } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(ApiError);
    expect((failed as ApiError).code).toBe(0);
    expect((failed as ApiError).message).toMatch(/POST \/b failed/);
    expect(p.received.map((r) => r.method)).toEqual(['GET', 'POST']);
  });

  it('does not repeat a GET cut on a new connection (only a kept-alive one may have been closing)', async () => {
    const p = await probe(new Set([1]));
    const failed = await p.transport.request({ method: 'GET', path: '/a' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(ApiError);
    expect(p.received).toHaveLength(1);
  });

  it('closes a connection idle longer than idleSocketTimeoutMs, and opens a new one after', async () => {
    const p = await probe(new Set(), 150);
    await p.transport.request({ method: 'GET', path: '/a' });
    await p.transport.request({ method: 'GET', path: '/b' });
    expect(p.connections).toBe(1); // kept alive between requests
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(p.closedConnections).toBe(1); // closed by the client, idle
    await p.transport.request({ method: 'GET', path: '/c' });
    expect(p.connections).toBe(2);
  });

  it("keeps an idle connection open by default (60 s, below kube-apiserver's 90 s)", async () => {
    const p = await probe(new Set());
    await p.transport.request({ method: 'GET', path: '/a' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(p.closedConnections).toBe(0);
    await p.transport.request({ method: 'GET', path: '/b' });
    expect(p.connections).toBe(1);
  });
});
