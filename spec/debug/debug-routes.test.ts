import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { HistoryRecorder } from '../../lib/debug/history-recorder.js';
import { debugAllowed, debugRefusal } from '../../lib/debug/debug-routes.js';
import { HealthServer } from '../../lib/observability/health-server.js';
import type { IncomingMessage } from 'node:http';

const servers: HealthServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(history: HistoryRecorder, token?: string): Promise<string> {
  const server = new HealthServer({
    host: '127.0.0.1',
    port: 0,
    registry: new Registry(),
    debug: {
      history,
      token,
      controllers: () => [
        {
          name: 'web',
          synced: true,
          leading: true,
          ready: true,
          workersBusy: 0,
          workers: 2,
          queueDepth: 3,
          oldestWaitingMs: 12,
        },
      ],
    },
  });
  servers.push(server);
  return server.start();
}

describe('live view routes', () => {
  it('serves the page and the JSON API with names, results and errors', async () => {
    const h = new HistoryRecorder();
    h.record('web', 'default/<img src=x onerror=alert(1)>', {
      startedAt: 1,
      durationMs: 2,
      result: 'error',
      attempt: 3,
      deleting: false,
      error: 'boom',
      nextAt: 99,
    });
    const url = await serve(h);
    const page = await fetch(`${url}/debug/`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('textContent');
    expect(html).not.toMatch(/innerHTML/);
    const objects = (await (await fetch(`${url}/debug/api/objects?search=img`)).json()) as {
      objects: { key: string; error: string; attempt: number; nextAt: number }[];
    };
    expect(objects.objects).toEqual([
      expect.objectContaining({
        key: 'default/<img src=x onerror=alert(1)>',
        error: 'boom',
        attempt: 3,
        nextAt: 99,
      }),
    ]);
    const controllers = (await (await fetch(`${url}/debug/api/controllers`)).json()) as {
      controllers: unknown[];
    };
    expect(controllers.controllers).toEqual([expect.objectContaining({ name: 'web', queueDepth: 3 })]);
    const one = await fetch(
      `${url}/debug/api/object?controller=web&key=${encodeURIComponent('default/<img src=x onerror=alert(1)>')}`,
    );
    expect(((await one.json()) as { passes: unknown[] }).passes).toHaveLength(1);
    expect((await fetch(`${url}/debug/api/object?controller=web&key=nope`)).status).toBe(404);
    expect((await fetch(`${url}/metrics`)).status).toBe(200);
  });

  it('admits loopback clients, or others only with the bearer token', () => {
    const from = (address: string, authorization?: string): IncomingMessage =>
      ({
        socket: { remoteAddress: address },
        headers: { host: '127.0.0.1:8081', ...(authorization === undefined ? {} : { authorization }) },
      }) as IncomingMessage;
    expect(debugAllowed(from('127.0.0.1'), undefined)).toBe(true);
    expect(debugAllowed(from('::1'), undefined)).toBe(true);
    expect(debugAllowed(from('10.0.0.5'), undefined)).toBe(false);
    expect(debugAllowed(from('10.0.0.5'), 's3cret')).toBe(false);
    expect(debugAllowed(from('10.0.0.5', 'Bearer wrong'), 's3cret')).toBe(false);
    expect(debugAllowed(from('10.0.0.5', 'Bearer s3cret'), 's3cret')).toBe(true);
  });

  it('refuses a tokenless loopback request naming another host or origin (DNS rebinding), unless allowed', () => {
    const from = (headers: Record<string, string>): IncomingMessage =>
      ({ socket: { remoteAddress: '127.0.0.1' }, headers }) as unknown as IncomingMessage;
    for (const host of ['localhost:8081', '127.0.0.1:8081', '[::1]:8081', 'app.localhost', '127.0.0.2']) {
      expect(debugRefusal(from({ host }), {}), host).toBeUndefined();
    }
    expect(debugRefusal(from({ host: 'evil.example:8081' }), {})).toMatch(
      /Host "evil.example" is not a loopback name/,
    );
    expect(debugRefusal(from({}), {})).toMatch(/not a loopback name/);
    expect(debugRefusal(from({ host: 'localhost:8081', origin: 'http://evil.example:8081' }), {})).toMatch(
      /pages on "evil.example" are refused/,
    );
    expect(
      debugRefusal(from({ host: 'localhost:8081', origin: 'http://localhost:8081' }), {}),
    ).toBeUndefined();
    expect(debugRefusal(from({ host: 'devbox.lan:8081' }), { allowedHosts: ['devbox.lan'] })).toBeUndefined();
    // The bearer token is the configuration for remote use: a rebinding page cannot send it.
    expect(
      debugRefusal(from({ host: 'evil.example', authorization: 'Bearer s3cret' }), { token: 's3cret' }),
    ).toBeUndefined();
  });

  it('streams passes over SSE and survives a client disconnecting mid-stream', async () => {
    const h = new HistoryRecorder();
    const url = await serve(h);
    const got = await new Promise<string>((resolve, reject) => {
      const req = request(`${url}/debug/api/stream`, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
          if (body.includes('event: pass')) {
            req.destroy();
            resolve(body);
          }
        });
        h.record('web', 'ns/a', {
          startedAt: 1,
          durationMs: 1,
          result: 'success',
          attempt: 0,
          deleting: false,
        });
      });
      req.on('error', (err) => {
        if (!req.destroyed) reject(err);
      });
      req.end();
    });
    expect(got).toContain('"key":"ns/a"');
    // The client is gone: recording goes on, and the server still answers.
    for (let i = 0; i < 1000; i++)
      h.record('web', `ns/b${i}`, {
        startedAt: i,
        durationMs: 1,
        result: 'success',
        attempt: 0,
        deleting: false,
      });
    const res = await fetch(`${url}/debug/api/objects`);
    expect(((await res.json()) as { total: number }).total).toBe(1001);
  });
});
