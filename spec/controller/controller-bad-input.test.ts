import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Controller, ExponentialRateLimiter, type Logger } from '../../lib/index.js';
import {
  eventually,
  metricValue,
  sleep,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from './controller-support.js';

/** A logger keeping error lines (message and fields). */
function capturingLogger(lines: { msg: string; meta: Record<string, unknown> }[]): Logger {
  const make = (meta: Record<string, unknown>): Logger => ({
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: (msg: string, extra?: Record<string, unknown>) => {
      lines.push({ msg, meta: { ...meta, ...extra } });
    },
    child: (more: Record<string, unknown>) => make({ ...meta, ...more }),
  });
  return make({});
}

describe('Controller with bad input at run time', () => {
  let h: Harness;
  const controllers: Controller<Widget>[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    await h.close();
  });

  it('a mapper that throws or returns garbage drops that event (logged, counted); other events go on', async () => {
    const lines: { msg: string; meta: Record<string, unknown> }[] = [];
    const seen: string[] = [];
    const controller = new Controller<Widget>({
      name: 'mapping',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      reconciler: (_ctx, req) => {
        seen.push(req.key);
      },
      logger: capturingLogger(lines),
      watches: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          map: (cm) => {
            const mode = cm.metadata?.labels?.mode;
            if (mode === 'throw') throw new Error('mapper bug');
            if (mode === 'garbage') return 'default/a' as unknown as string[];
            if (mode === 'bad-item') return [42] as unknown as string[];
            return [`default/${cm.metadata?.labels?.widget ?? ''}`];
          },
        },
      ],
    });
    controllers.push(controller);
    await controller.start();
    await h.client.create(widget('good'));
    await eventually(() => seen.includes('default/good'));
    const cm = (name: string, labels: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default', labels },
    });
    await h.client.create(cm('t', { mode: 'throw' }));
    await h.client.create(cm('g', { mode: 'garbage' }));
    await h.client.create(cm('b', { mode: 'bad-item' }));
    await h.client.create(cm('ok', { widget: 'good' }));
    await eventually(() => seen.filter((k) => k === 'default/good').length === 2);
    const labels = { controller: 'mapping', source: 'ConfigMap (v1)' };
    await eventually(
      async () => (await metricValue(controller.metrics, 'reconcilekit_source_errors_total', labels)) === 3,
    );
    const dropped = lines.filter((l) => l.msg.includes('event dropped'));
    expect(dropped).toHaveLength(3);
    expect(String(dropped.map((l) => (l.meta.err as Error).message))).toMatch(/mapper bug/);
    expect(String(dropped.map((l) => (l.meta.err as Error).message))).toMatch(/must return an array of keys/);
    expect(String(dropped.map((l) => (l.meta.err as Error).message))).toMatch(
      /result \[0\] must be a non-empty/,
    );
    expect(controller.ready).toBe(true);
  });

  it('a reconciler returning a non-object fails that key only (typed message, counted); other keys reconcile', async () => {
    const lines: { msg: string; meta: Record<string, unknown> }[] = [];
    const seen: string[] = [];
    const controller = new Controller<Widget>({
      name: 'returns',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      rateLimiter: new ExponentialRateLimiter({ baseDelayMs: 50, factor: 2, maxDelayMs: 200 }),
      reconciler: ((_ctx: unknown, req: { key: string }) => {
        seen.push(req.key);
        if (req.key === 'default/bad') return 'done';
        if (req.key === 'default/negative') return { requeueAfterMs: -1 };
        return undefined;
      }) as never,
      logger: capturingLogger(lines),
    });
    controllers.push(controller);
    await controller.start();
    await h.client.create(widget('bad'));
    await h.client.create(widget('negative'));
    await h.client.create(widget('fine'));
    await eventually(() => seen.filter((k) => k === 'default/bad').length >= 2);
    await eventually(() => seen.filter((k) => k === 'default/negative').length >= 2);
    await sleep(100);
    expect(seen.filter((k) => k === 'default/fine')).toHaveLength(1);
    const failures = lines.filter((l) => l.msg.startsWith('failed to reconcile'));
    const messages = failures.map((l) => (l.meta.err as Error).message);
    expect(
      messages.some((m) =>
        /reconciler\.reconcile returned string; return nothing, or \{ requeueAfterMs/.test(m),
      ),
    ).toBe(true);
    expect(messages.some((m) => /requeueAfterMs -1; it must be a finite number/.test(m))).toBe(true);
    expect(failures.every((l) => l.meta.object !== 'default/fine')).toBe(true);
    expect(
      await metricValue(controller.metrics, 'controller_runtime_reconcile_errors_total', {
        controller: 'returns',
      }),
    ).toBeGreaterThanOrEqual(4);
  });
});
