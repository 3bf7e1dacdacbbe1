import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { Controller, createLogger, InvalidConfigError, Operator } from '../../lib/index.js';
import {
  eventually,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from '../controller/controller-support.js';

const silent = createLogger({ silent: true });

/**
 * The process concerns (health server, live view, Lease) belong to a host: an Operator, or the implicit
 * host of a front end started alone. The engine builds none of them and no host changes a controller's
 * config.
 */
describe('host: the health server, the live view and the Lease around the engine', () => {
  let h: Harness;
  const cleanups: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await h.close();
  });

  function controller(name: string, seen: string[], registry?: Registry): Controller<Widget> {
    const c = new Controller<Widget>({
      name,
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      reconciler: (_ctx, req) => {
        seen.push(req.key);
      },
      healthServer: { port: 0 },
      debugPage: true,
      leaderElection: {
        leaseName: `lease-${name}`,
        namespace: 'default',
        leaseDurationMs: 3_000,
        renewDeadlineMs: 2_000,
        retryPeriodMs: 200,
      },
      logger: silent,
      ...(registry === undefined ? {} : { registry }),
    });
    cleanups.push(() => c.stop());
    return c;
  }

  it('a controller started alone runs in its own host: health server with the engine checks, live view, its Lease', async () => {
    const seen: string[] = [];
    const c = controller('alone', seen);
    expect(c.healthUrl).toBeUndefined();
    await c.start();
    const url = c.healthUrl;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await eventually(() => c.leading);
    const ready = await fetch(`${url}/readyz?verbose`);
    const text = await ready.text();
    expect(ready.status).toBe(200);
    for (const check of [
      'cache-synced',
      'not-stopping',
      'watches-healthy',
      'workers-stuck',
      'stuck-deletions',
    ]) {
      expect(text).toContain(check);
    }
    const view = await fetch(`${url}/debug/api/controllers`);
    expect(view.status).toBe(200);
    expect(JSON.stringify(await view.json())).toContain('alone');
    const lease = await h.client.get({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'default',
      name: 'lease-alone',
    });
    expect((lease as { spec?: { holderIdentity?: string } }).spec?.holderIdentity).toBeTruthy();
    await h.client.create(widget('w1'));
    await eventually(() => seen.includes('default/w1'));
    await c.stop();
    // The health server closed with the controller.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    // The Lease was released on stop: no holder.
    const released = await h.client.get({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'default',
      name: 'lease-alone',
    });
    expect((released as { spec?: { holderIdentity?: string } }).spec?.holderIdentity ?? '').toBe('');
  });

  it('joining an Operator changes no config: metrics go to its registry, the controller keeps its own', async () => {
    const own = new Registry();
    const c = controller('member', [], own);
    const operator = new Operator({ kubeConfig: h.kubeConfig, logger: silent });
    cleanups.push(() => operator.stop());
    operator.addController(c);
    expect(c.config.registry).toBe(own);
    expect(c.metrics).toBe(operator.metrics);
    expect(() => {
      new Operator({ kubeConfig: h.kubeConfig, logger: silent }).addController(c);
    }).toThrow(/already runs in a host/);
  });

  it('the engine alone builds no health server or Lease: a core started without a host says where they belong', async () => {
    const c = controller('core-only', []);
    const core = c.core;
    await expect(core.start()).rejects.toThrow(InvalidConfigError);
    await expect(
      new Controller<Widget>({
        name: 'x',
        kubeConfig: h.kubeConfig,
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
        reconciler: () => undefined,
        healthServer: { port: 0 },
        logger: silent,
      }).core.start(),
    ).rejects.toThrow(/are a host's/);
  });

  it('the health server starts beside the controller: a port in use fails start() and stops the controller, a Controller alone or in an Operator', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const seen: string[] = [];
      const alone = new Controller<Widget>({
        name: 'port-taken',
        kubeConfig: h.kubeConfig,
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
        reconciler: (_ctx, req) => {
          seen.push(req.key);
        },
        healthServer: { host: '127.0.0.1', port },
        logger: silent,
      });
      cleanups.push(() => alone.stop());
      await expect(alone.start()).rejects.toThrow(/EADDRINUSE|in use/);
      expect(alone.ready).toBe(false);
      expect(alone.healthUrl).toBeUndefined();
      // Stopped, not left running behind the failed start: a new object is not reconciled.
      await h.client.create(widget('after-failure'));
      await new Promise((r) => setTimeout(r, 300));
      expect(seen).not.toContain('default/after-failure');

      const inOperator = new Operator({
        kubeConfig: h.kubeConfig,
        logger: silent,
        healthServer: { host: '127.0.0.1', port },
      });
      inOperator.addController(
        new Controller<Widget>({
          name: 'port-taken-member',
          kubeConfig: h.kubeConfig,
          resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
          reconciler: () => undefined,
          logger: silent,
        }),
      );
      cleanups.push(() => inOperator.stop());
      await expect(inOperator.start()).rejects.toThrow(/EADDRINUSE|in use/);
      expect(inOperator.ready).toBe(false);
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});
