import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { HealthServer } from '../../lib/observability/health-server.js';

describe('HealthServer', () => {
  let server: HealthServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers /healthz, /readyz by its checks, and /metrics from the registry', async () => {
    const registry = new Registry();
    new Counter({ name: 'probe_total', help: 'a probe counter', registers: [registry] });
    let synced = false;
    server = new HealthServer({
      host: '127.0.0.1',
      port: 0,
      registry,
      readinessChecks: { 'cache-synced': () => (synced ? undefined : 'cache not synced yet') },
    });
    const url = await server.start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const healthz = await fetch(`${url}/healthz`);
    expect(healthz.status).toBe(200);
    expect(await healthz.text()).toBe('ok');

    const notReady = await fetch(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).toContain('[-]cache-synced failed: cache not synced yet');

    synced = true;
    const ready = await fetch(`${url}/readyz?verbose`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toContain('[+]cache-synced ok');

    const metrics = await fetch(`${url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(await metrics.text()).toContain('probe_total 0');

    expect((await fetch(`${url}/nope`)).status).toBe(404);
  });

  it('closes so that the port is free again', async () => {
    server = new HealthServer({ host: '127.0.0.1', port: 0, registry: new Registry() });
    const url = await server.start();
    await fetch(`${url}/healthz`);
    await server.close();
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
