// The live view on a real Controller against the embedded API server: passes recorded with results, errors,
// attempts and the next retry; a deleted object's history evicted; an Operator's page lists its controllers.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Controller } from '../../lib/controller/controller.js';
import { Operator } from '../../lib/operator/operator.js';
import { createLogger } from '../../lib/observability/logger.js';
import { DEBUG_PAGE_ENV, type DebugEvent, type ObjectSummary } from '../../lib/debug/history-recorder.js';
import { eventRecorderKey } from '../../lib/engine/context-keys.js';
import { eventually, ref, useHarness, widget, WIDGET, type Widget } from '../crud/harness.js';

async function objects(url: string): Promise<ObjectSummary[]> {
  const res = await fetch(`${url}/debug/api/objects`);
  return ((await res.json()) as { objects: ObjectSummary[] }).objects;
}

describe('live view on a running controller', () => {
  const t = useHarness();

  it('records each pass: success, a failing object with its error, attempt and next retry; evicts on delete', async () => {
    const ctrl = new Controller<Widget>({
      name: 'live',
      kubeConfig: t.h.kubeConfig,
      resource: WIDGET,
      finalizer: false,
      debugPage: true,
      healthServer: { host: '127.0.0.1', port: 0 },
      reconciler: {
        reconcile: (_ctx, req) => {
          if (req.object.metadata?.name === 'bad') throw new Error('bucket <b>quota</b> exceeded');
        },
      },
      logger: createLogger({ silent: true }),
    });
    t.stops.push(() => ctrl.stop());
    await ctrl.start();
    const url = ctrl.healthUrl ?? '';
    await t.h.client.create(widget('good'));
    await t.h.client.create(widget('bad'));
    const bad = await eventually(
      async () => (await objects(url)).find((o) => o.key.endsWith('/bad') && o.attempt >= 1),
      15_000,
      'a retried failure',
    );
    expect(bad).toMatchObject({
      controller: 'live',
      result: 'error',
      error: 'reconciler.reconcile: bucket <b>quota</b> exceeded',
    });
    expect(bad.nextAt).toBeGreaterThan(bad.startedAt);
    const good = (await objects(url)).find((o) => o.key.endsWith('/good'));
    expect(good).toMatchObject({ result: 'success', attempt: 0 });
    const controllers = (await (await fetch(`${url}/debug/api/controllers`)).json()) as {
      controllers: { name: string; synced: boolean }[];
    };
    expect(controllers.controllers).toEqual([expect.objectContaining({ name: 'live', synced: true })]);
    await t.h.client.delete(ref('good'));
    await eventually(
      async () => !(await objects(url)).some((o) => o.key.endsWith('/good')),
      15_000,
      'eviction',
    );
  });

  it('lists the Events it posted, newest first, repeats folded, names only', async () => {
    const ctrl = new Controller<Widget>({
      name: 'evented',
      kubeConfig: t.h.kubeConfig,
      resource: WIDGET,
      finalizer: false,
      debugPage: true,
      healthServer: { host: '127.0.0.1', port: 0 },
      reconciler: {
        reconcile: (ctx, req) => {
          if (req.object.metadata?.name === 'broken') throw new Error('disk <i>full</i>');
          ctx.get(eventRecorderKey)?.({ type: 'Normal', reason: 'Provisioned', message: 'bucket ready' });
        },
      },
      logger: createLogger({ silent: true }),
    });
    t.stops.push(() => ctrl.stop());
    await ctrl.start();
    const url = ctrl.healthUrl ?? '';
    await t.h.client.create(widget('fine', {}, { secret: 'not-for-the-page' }));
    const events = async () =>
      ((await (await fetch(`${url}/debug/api/events`)).json()) as { events: DebugEvent[] }).events;
    await eventually(async () => (await events()).some((e) => e.reason === 'Provisioned'), 15_000, 'Normal');
    await t.h.client.create(widget('broken'));
    const warning = await eventually(
      async () => (await events()).find((e) => e.type === 'Warning' && e.count >= 2),
      15_000,
      'a repeated Warning Event',
    );
    expect(warning).toMatchObject({
      controller: 'evented',
      object: `${WIDGET.kind} default/broken`,
      message: expect.stringContaining('disk <i>full</i>') as unknown,
    });
    const list = await events();
    // Newest first: the Warning (recorded again on each retry) comes before the one Normal Event.
    const iWarning = list.findIndex((e) => e.type === 'Warning');
    const iNormal = list.findIndex((e) => e.reason === 'Provisioned');
    expect(iWarning).toBeLessThan(iNormal);
    expect(list[iNormal]).toMatchObject({ object: `${WIDGET.kind} default/fine`, count: 1 });
    expect(JSON.stringify(list)).not.toContain('not-for-the-page');
  });

  it('serves nothing under /debug/ unless debugPage is on', async () => {
    const ctrl = new Controller<Widget>({
      name: 'off',
      kubeConfig: t.h.kubeConfig,
      resource: WIDGET,
      healthServer: { host: '127.0.0.1', port: 0 },
      reconciler: { reconcile: () => undefined },
      logger: createLogger({ silent: true }),
    });
    t.stops.push(() => ctrl.stop());
    await ctrl.start();
    expect((await fetch(`${ctrl.healthUrl ?? ''}/debug/`)).status).toBe(404);
  });

  it('an Operator shares one history and lists every controller', async () => {
    const op = new Operator({
      kubeConfig: t.h.kubeConfig,
      debugPage: true,
      healthServer: { host: '127.0.0.1', port: 0 },
      logger: createLogger({ silent: true }),
    });
    for (const name of ['one', 'two']) {
      op.addController(
        new Controller<Widget>({
          name,
          kubeConfig: t.h.kubeConfig,
          resource: WIDGET,
          finalizer: false,
          reconciler: { reconcile: () => undefined },
          logger: createLogger({ silent: true }),
        }),
      );
    }
    t.stops.push(() => op.stop());
    await op.start();
    const url = op.healthUrl ?? '';
    await t.h.client.create(widget('shared'));
    await eventually(
      async () => (await objects(url)).filter((o) => o.key.endsWith('/shared')).length === 2,
      15_000,
      'both controllers',
    );
    const body = (await (await fetch(`${url}/debug/api/controllers`)).json()) as {
      controllers: { name: string }[];
    };
    expect(body.controllers.map((c) => c.name)).toEqual(['one', 'two']);
  });
});

describe('live view hosts', () => {
  const t = useHarness();

  it('answers a loopback Host, refuses another (DNS rebinding) with 403 naming it, and admits debugPage.allowedHosts', async () => {
    const ctrl = new Controller<Widget>({
      name: 'hosts',
      kubeConfig: t.h.kubeConfig,
      resource: WIDGET,
      finalizer: false,
      debugPage: { allowedHosts: ['DevBox.lan'] },
      healthServer: { host: '127.0.0.1', port: 0 },
      reconciler: { reconcile: () => undefined },
      logger: createLogger({ silent: true }),
    });
    t.stops.push(() => ctrl.stop());
    await ctrl.start();
    const port = new URL(ctrl.healthUrl ?? '').port;
    const get = (host: string, path = '/debug/api/controllers'): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body });
          });
        })
          .on('error', reject)
          .end();
      });
    expect((await get(`localhost:${port}`)).status).toBe(200);
    expect((await get(`devbox.lan:${port}`)).status).toBe(200);
    const rebound = await get(`attacker.example:${port}`);
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain('attacker.example');
    // The probes are not behind the check: kubelet names the pod IP.
    expect((await get(`10.1.2.3:${port}`)).status).toBe(403);
    expect((await get('10.1.2.3', '/healthz')).status).toBe(200);
  });

  it('refuses a debugPage.allowedHosts that is not a list of names, saying what to give', () => {
    expect(
      () =>
        new Controller<Widget>({
          name: 'bad-hosts',
          resource: WIDGET,
          debugPage: { allowedHosts: 'devbox.lan' as unknown as string[] },
          reconciler: { reconcile: () => undefined },
        }),
    ).toThrow(/debugPage.allowedHosts must be a list of host names/);
  });

  it('under reconcilekit dev (its env) shows the live view on a loopback health server even when none is configured', async () => {
    const saved = process.env[DEBUG_PAGE_ENV];
    process.env[DEBUG_PAGE_ENV] = '1';
    try {
      const config = {
        kubeConfig: t.h.kubeConfig,
        resource: WIDGET,
        finalizer: false as const,
        reconciler: { reconcile: () => undefined },
        logger: createLogger({ silent: true }),
      };
      const alone = new Controller<Widget>({ name: 'dev-alone', ...config });
      t.stops.push(() => alone.stop());
      const operator = new Operator({ logger: createLogger({ silent: true }) });
      operator.addController(new Controller<Widget>({ name: 'dev-member', ...config }));
      t.stops.push(() => operator.stop());
      await alone.start();
      await operator.start();
      for (const [url, name] of [
        [alone.healthUrl, 'dev-alone'],
        [operator.healthUrl, 'dev-member'],
      ] as const) {
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        const res = await fetch(`${url ?? ''}/debug/api/controllers`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as { controllers: { name: string }[] };
        expect(body.controllers.map((c) => c.name)).toEqual([name]);
      }
      // Configured explicitly, the operator's choice wins: no health server, no live view.
      const off = new Controller<Widget>({ name: 'dev-off', ...config, healthServer: false });
      t.stops.push(() => off.stop());
      await off.start();
      expect(off.healthUrl).toBeUndefined();
    } finally {
      if (saved === undefined) Reflect.deleteProperty(process.env, DEBUG_PAGE_ENV);
      else process.env[DEBUG_PAGE_ENV] = saved;
    }
  });
});
