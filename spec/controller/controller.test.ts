import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Controller,
  createLogger,
  ExponentialRateLimiter,
  exponentialBackoffRetryPolicy,
  predicates,
  ReconcileError,
  TerminalError,
  type ControllerConfig,
  type ReconcileRequest,
  type ReconcileResult,
} from '../../lib/index.js';
import {
  eventsAbout,
  eventually,
  gone,
  metricValue,
  ref,
  sleep,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from './controller-support.js';

interface Call {
  action: string;
  key: string;
  state: unknown;
  attempt: number;
  version: string | undefined;
  spec: unknown;
  finalizers: string[];
  at: number;
}

describe('Controller on the embedded API server', () => {
  let h: Harness;
  const controllers: Controller<Widget>[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    await h.close();
  });

  function record(calls: Call[], req: ReconcileRequest<Widget>): void {
    calls.push({
      action: req.action,
      key: req.key,
      state: req.state,
      attempt: req.attempt,
      version: req.object.metadata?.resourceVersion,
      spec: req.object.spec,
      finalizers: req.object.metadata?.finalizers ?? [],
      at: performance.now(),
    });
  }

  async function start(
    name: string,
    reconciler: ControllerConfig<Widget>['reconciler'],
    extra: Partial<ControllerConfig<Widget>> = {},
  ): Promise<Controller<Widget>> {
    const controller = new Controller<Widget>({
      name,
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      reconciler,
      rateLimiter: new ExponentialRateLimiter({ baseDelayMs: 20, factor: 2, maxDelayMs: 400 }),
      logger: createLogger({ silent: true }),
      ...extra,
    });
    controllers.push(controller);
    await controller.start();
    return controller;
  }

  it('A1: coalesces a burst of 50 patches into a few calls, never two at once, ending on the last version', async () => {
    const calls: Call[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    await start(
      'burst',
      async (_ctx, req) => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        record(calls, req);
        await sleep(15);
        inFlight -= 1;
      },
      { workers: 4 },
    );
    await h.client.create(widget('w', {}, { n: 0 }));
    await eventually(() => calls.length >= 1);
    let last: Widget | undefined;
    const burstStart = performance.now();
    for (let n = 1; n <= 50; n++) last = await h.client.patch<Widget>(ref('w'), { spec: { n } }, 'merge');
    const finalVersion = last?.metadata?.resourceVersion;
    await eventually(() => calls.at(-1)?.version === finalVersion, 5_000, 'a call on the final version');
    const burstMs = performance.now() - burstStart;
    await sleep(300);
    expect(calls.at(-1)?.version).toBe(finalVersion);
    // At most one call per minimum interval (100 ms) while the burst lasts, besides the create's: a few
    // on a quiet machine; a loaded one stretches the burst, and the bound follows it.
    expect(calls.length).toBeLessThanOrEqual(Math.min(25, Math.ceil(burstMs / 100) + 2));
    expect(maxInFlight).toBe(1);
    expect(calls[0]?.action).toBe('created');
    expect(calls.slice(1).every((c) => c.action === 'updated')).toBe(true);
  });

  it('A2: requeueAfterMs runs the key again after the delay, counted as requeue_after, no Warning Event', async () => {
    const calls: Call[] = [];
    const controller = await start('requeue', (_ctx, req): ReconcileResult | undefined => {
      record(calls, req);
      return calls.length === 1 ? { requeueAfterMs: 200 } : undefined;
    });
    await h.client.create(widget('r'));
    await eventually(() => calls.length === 2);
    await sleep(300);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(190);
    expect(calls[1]?.action).toBe('resynced');
    const labels = { controller: 'requeue', result: 'requeue_after' };
    expect(await metricValue(controller.metrics, 'controller_runtime_reconcile_total', labels)).toBe(1);
    expect((await eventsAbout(h, 'r')).filter((e) => e.type === 'Warning')).toHaveLength(0);
  });

  it('A3: state from a ReconcileError reaches the retry and is gone after a fresh change', async () => {
    const calls: Call[] = [];
    await start('stateful', (_ctx, req) => {
      record(calls, req);
      if (calls.length === 1) throw new ReconcileError('remote not ready', { state: { step: 'remote' } });
    });
    await h.client.create(widget('s', {}, { v: 1 }));
    await eventually(() => calls.length >= 2);
    expect(calls[1]).toMatchObject({ state: { step: 'remote' }, attempt: 1 });
    await h.client.patch(ref('s'), { spec: { v: 2 } }, 'merge');
    await eventually(() => calls.some((c) => (c.spec as { v?: number }).v === 2));
    const fresh = calls.find((c) => (c.spec as { v?: number }).v === 2);
    expect(fresh).toMatchObject({ state: undefined, attempt: 0, action: 'updated' });
  });

  it('A4: a ReconcileError with requeueAfterMs is a requeue, not an error', async () => {
    const calls: Call[] = [];
    const controller = await start('requeue-wins', (_ctx, req) => {
      record(calls, req);
      if (calls.length === 1) throw new ReconcileError('later', { requeueAfterMs: 300 });
    });
    await h.client.create(widget('q'));
    await eventually(() => calls.length === 2);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(290);
    expect(calls[1]?.attempt).toBe(0);
    expect(
      await metricValue(controller.metrics, 'controller_runtime_reconcile_errors_total', {
        controller: 'requeue-wins',
      }),
    ).toBe(0);
    expect((await eventsAbout(h, 'q')).filter((e) => e.type === 'Warning')).toHaveLength(0);
  });

  it('A5/A6: with cleanup, the finalizer precedes reconcile; cleanup retries until it succeeds, foreign finalizers stay', async () => {
    const calls: Call[] = [];
    const cleanups: Call[] = [];
    await start('cleaner', {
      reconcile: (_ctx, req) => {
        record(calls, req);
      },
      cleanup: async (_ctx, req) => {
        record(cleanups, req);
        const live = await h.client.get<Widget>(ref('c'));
        expect(live.metadata?.deletionTimestamp).toBeDefined();
        if (cleanups.length <= 2) throw new Error('cloud API unavailable');
      },
    });
    await h.client.create(widget('c', { finalizers: ['example.com/foreign'] }));
    await eventually(() => calls.length >= 1);
    expect(calls[0]?.finalizers).toContain('reconcilekit.io/cleaner');
    await h.client.delete(ref('c'));
    await eventually(() => cleanups.length >= 2);
    expect(await gone(h, 'c')).toBe(false);
    await eventually(async () => {
      const live = await h.client.get<Widget>(ref('c'));
      return !(live.metadata?.finalizers ?? []).includes('reconcilekit.io/cleaner');
    });
    expect(cleanups).toHaveLength(3);
    expect(cleanups.every((c) => c.action === 'deleted')).toBe(true);
    const live = await h.client.get<Widget>(ref('c'));
    expect(live.metadata?.finalizers).toEqual(['example.com/foreign']);
    await h.client.patch(ref('c'), { metadata: { finalizers: null } }, 'merge');
    await eventually(() => gone(h, 'c'));
    await sleep(200);
    expect(cleanups).toHaveLength(3);
  });

  it('A7: without cleanup, no finalizer, and a deletion calls reconcile once with the last known object', async () => {
    const calls: Call[] = [];
    await start('plain', (_ctx, req) => {
      record(calls, req);
    });
    await h.client.create(widget('p', {}, { colour: 'blue' }));
    await eventually(() => calls.length >= 1);
    expect((await h.client.get<Widget>(ref('p'))).metadata?.finalizers).toBeUndefined();
    await h.client.delete(ref('p'));
    await eventually(() => calls.some((c) => c.action === 'deleted'));
    await sleep(200);
    const deleted = calls.filter((c) => c.action === 'deleted');
    expect(deleted).toHaveLength(1);
    expect(deleted[0]?.spec).toEqual({ colour: 'blue' });
    expect(calls.every((c) => c.finalizers.length === 0)).toBe(true);
  });

  it('A8: a mapped ConfigMap watch wakes the primary it names; an unlabelled ConfigMap wakes none', async () => {
    const calls: Call[] = [];
    await start(
      'mapper',
      (_ctx, req) => {
        record(calls, req);
      },
      {
        watches: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            map: (cm) => {
              const w = cm.metadata?.labels?.widget;
              return w === undefined ? [] : [{ namespace: cm.metadata?.namespace, name: w }];
            },
          },
        ],
      },
    );
    await h.client.create(widget('m'));
    await eventually(() => calls.length === 1);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default' } };
    await h.client.create({ ...cm, metadata: { ...cm.metadata, name: 'other' } });
    await sleep(250);
    expect(calls).toHaveLength(1);
    await h.client.create({ ...cm, metadata: { ...cm.metadata, labels: { widget: 'm' } } });
    await eventually(() => calls.length === 2);
    expect(calls[1]).toMatchObject({ key: 'default/m', action: 'resynced' });
  });

  it('A9: generationChanged lets a new object through after the finalizer patch, drops status-only writes', async () => {
    const calls: Call[] = [];
    await start(
      'gen',
      {
        reconcile: (_ctx, req) => {
          record(calls, req);
        },
        cleanup: () => undefined,
      },
      { predicates: [predicates.generationChanged()] },
    );
    await h.client.create(widget('g', {}, { v: 1 }));
    await eventually(() => calls.length === 1, 3_000, 'the first reconcile after the finalizer patch');
    expect(calls[0]?.finalizers).toContain('reconcilekit.io/gen');
    await h.client.patch(ref('g'), { status: { seen: true } }, 'merge', { subresource: 'status' });
    await sleep(300);
    expect(calls).toHaveLength(1);
    await h.client.patch(ref('g'), { spec: { v: 2 } }, 'merge');
    await eventually(() => calls.length === 2);
    await sleep(200);
    expect(calls).toHaveLength(2);
  });

  it('A10: a retry policy spaces retries, gives up, and a change starts afresh at attempt 0', async () => {
    const calls: Call[] = [];
    await start(
      'policy',
      (_ctx, req) => {
        record(calls, req);
        throw new Error('always broken');
      },
      { retryPolicy: exponentialBackoffRetryPolicy(100, 2) },
    );
    await h.client.create(widget('x', {}, { v: 1 }));
    await eventually(() => calls.length === 4, 3_000);
    await sleep(900);
    expect(calls).toHaveLength(4);
    const t0 = calls[0]!.at;
    const offsets = calls.map((c) => c.at - t0);
    expect(offsets[1]).toBeGreaterThanOrEqual(90);
    expect(offsets[2]).toBeGreaterThanOrEqual(290);
    expect(offsets[3]).toBeGreaterThanOrEqual(690);
    expect(calls.map((c) => c.attempt)).toEqual([0, 1, 2, 3]);
    await h.client.patch(ref('x'), { spec: { v: 2 } }, 'merge');
    await eventually(() => calls.length === 5);
    expect(calls[4]?.attempt).toBe(0);
  });

  it('a TerminalError is not retried until the object changes, and is counted', async () => {
    const calls: Call[] = [];
    const controller = await start('terminal', (_ctx, req) => {
      record(calls, req);
      if ((req.object.spec as { v?: number }).v === 1) throw new TerminalError('spec.v 1 is not supported');
    });
    await h.client.create(widget('t', {}, { v: 1 }));
    await eventually(() => calls.length === 1);
    await sleep(400);
    expect(calls).toHaveLength(1);
    expect(
      await metricValue(controller.metrics, 'controller_runtime_terminal_reconcile_errors_total', {
        controller: 'terminal',
      }),
    ).toBe(1);
    await eventually(async () => (await eventsAbout(h, 't')).some((e) => e.reason === 'TerminalError'));
    await h.client.patch(ref('t'), { spec: { v: 2 } }, 'merge');
    await eventually(() => calls.length === 2);
    expect(calls[1]?.attempt).toBe(0);
  });
});
