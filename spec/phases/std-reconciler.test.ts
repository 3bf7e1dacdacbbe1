import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bindObject,
  Controller,
  createLogger,
  ExponentialRateLimiter,
  StdReconciler,
  type ControllerConfig,
  type Diff,
  type Reconciler,
  type RemoteResourceHooks,
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
} from '../controller/controller-support.js';

type W = Widget & { status?: Record<string, any> };

describe('StdReconciler on a Controller (seed 002, remote resource)', () => {
  let h: Harness;
  const controllers: Controller<W>[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    await h.close();
  });

  async function start(
    name: string,
    reconciler: Reconciler<W>,
    extra: Partial<ControllerConfig<W>> = {},
  ): Promise<Controller<W>> {
    const c = new Controller<W>({
      name,
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      reconciler,
      rateLimiter: new ExponentialRateLimiter({ baseDelayMs: 20, factor: 2, maxDelayMs: 200 }),
      logger: createLogger({ silent: true }),
      ...extra,
    });
    controllers.push(c);
    await c.start();
    return c;
  }

  it('C7: create on the first pass, update on the next, onSuccess gets the diff; delete only on deletion; status written once', async () => {
    const remote = new Map<string, string>();
    const calls: string[] = [];
    const diffs: Diff[] = [];
    const hooks: RemoteResourceHooks<W, { api: Map<string, string> }> = {
      configure: () => ({ api: remote }),
      read: (_ctx, obj, data, meta) => void data.set('current', meta.api.get(obj.metadata!.name!)),
      diff: (obj, data) => {
        const want = JSON.stringify(obj.spec?.size ?? '');
        const have = data.get('current');
        if (have === undefined) return { needCreate: true, needUpdate: false, diff: '' };
        return {
          needCreate: false,
          needUpdate: have !== want,
          diff: have !== want ? `size ${have as string} → ${want}` : '',
        };
      },
      create: (_ctx, obj, _data, meta) => {
        calls.push('create');
        meta.api.set(obj.metadata!.name!, JSON.stringify(obj.spec?.size ?? ''));
      },
      update: (_ctx, obj, _data, meta) => {
        calls.push('update');
        meta.api.set(obj.metadata!.name!, JSON.stringify(obj.spec?.size ?? ''));
      },
      delete: (_ctx, obj, _data, meta) => {
        calls.push('delete');
        meta.api.delete(obj.metadata!.name!);
      },
      onSuccess: (_ctx, obj, _data, _meta, diff) => {
        diffs.push(diff);
        obj.status = { synced: remote.get(obj.metadata!.name!) };
      },
    };
    await start('c7', new StdReconciler<W, { api: Map<string, string> }>({ hooks }));
    await h.client.create(widget('r1', {}, { size: 1 }));
    await eventually(async () => (await h.client.get<W>(ref('r1'))).status?.synced === '1');
    expect(calls).toEqual(['create']);
    expect(remote.get('r1')).toBe('1');
    await h.client.patch(ref('r1'), { spec: { size: 2 } }, 'merge');
    await eventually(async () => (await h.client.get<W>(ref('r1'))).status?.synced === '2');
    expect(calls).toEqual(['create', 'update']);
    expect(diffs.some((d) => d.needUpdate === true && d.diff === 'size 1 → 2')).toBe(true);
    expect((await h.client.get<W>(ref('r1'))).metadata!.finalizers).toEqual(['reconcilekit.io/c7']);
    await h.client.delete(ref('r1'));
    await eventually(() => gone(h, 'r1'));
    expect(calls).toEqual(['create', 'update', 'delete']);
    expect(remote.has('r1')).toBe(false);
  });

  it('C7: onError is always reached — a failing read, a failing configure (meta undefined) — and the error is rethrown (retried)', async () => {
    const seen: { meta: unknown; message: string }[] = [];
    let configureFails = true;
    let reads = 0;
    const hooks: RemoteResourceHooks<W, string> = {
      configure: () => {
        if (configureFails) throw new Error('no credentials');
        return 'client';
      },
      read: () => {
        reads += 1;
        throw new Error('remote 503');
      },
      diff: () => ({ needCreate: false, needUpdate: false }),
      onError: (_ctx, obj, _data, meta, err) => {
        seen.push({ meta, message: (err as Error).message });
        obj.status = { error: (err as Error).message };
      },
    };
    const c = await start('c7e', new StdReconciler<W, string>({ hooks }));
    await h.client.create(widget('r2'));
    await eventually(() => seen.length >= 1);
    expect(seen[0]).toEqual({ meta: undefined, message: 'no credentials' });
    configureFails = false;
    await eventually(() => reads >= 2, 5_000, 'read retried');
    expect(seen.some((s) => s.meta === 'client' && s.message === 'remote 503')).toBe(true);
    await eventually(
      async () => (await h.client.get<W>(ref('r2'))).status?.error === 'remote 503',
      5_000,
      'status from onError written',
    );
    expect(
      await metricValue(c.metrics, 'controller_runtime_reconcile_errors_total', {}),
    ).toBeGreaterThanOrEqual(2);
  });

  it('without hooks.delete there is no finalizer', async () => {
    const hooks: RemoteResourceHooks<W> = {
      read: () => undefined,
      diff: () => ({ needCreate: false, needUpdate: false }),
    };
    const r = new StdReconciler<W>({ hooks });
    expect(r.cleanup).toBeUndefined();
    await start('nofin', r);
    await h.client.create(widget('r3'));
    await sleep(200);
    expect((await h.client.get<W>(ref('r3'))).metadata!.finalizers).toBeUndefined();
  });

  it('bad input: missing read/diff, a diff asking for a missing create, a diff returning garbage', async () => {
    expect(() => new StdReconciler<W>({ hooks: { diff: () => ({}) } as never })).toThrow(
      /hooks.read must be a function/,
    );
    expect(() => new StdReconciler<W>({} as never)).toThrow(/hooks is required/);
    const errors: string[] = [];
    let mode = 0;
    const hooks: RemoteResourceHooks<W> = {
      read: () => undefined,
      diff: () => (mode === 0 ? { needCreate: true } : ('yes' as never)),
      onError: (_c, _o, _d, _m, err) => void errors.push((err as Error).message),
    };
    await start('bad', new StdReconciler<W>({ hooks }));
    await h.client.create(widget('r4'));
    await eventually(() => errors.length >= 1);
    mode = 1;
    await eventually(() => errors.length >= 3);
    expect(errors[0]).toBe('hooks.diff asked to create, but hooks.create is missing');
    expect(errors.at(-1)).toMatch(/hooks.diff returned "yes"; return \{ needCreate\/needUpdate: boolean/);
  });
});

describe('the engine treats a stale object and a held lock as "retry soon" (C10, C11)', () => {
  let h: Harness;
  const controllers: Controller<W>[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    await h.close();
  });

  async function start(name: string, reconciler: Reconciler<W>): Promise<Controller<W>> {
    const c = new Controller<W>({
      name,
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      reconciler,
      logger: createLogger({ silent: true }),
    });
    controllers.push(c);
    await c.start();
    return c;
  }

  it('C10: the object changes before guard: task not run, pass requeued ≈ 1 s later, no Warning Event, no Ready=False, no error metric', async () => {
    const passes: number[] = [];
    const tasks: number[] = [];
    const c = await start('stale', {
      reconcile: async (ctx, req) => {
        passes.push(performance.now());
        const bound = bindObject(ctx, req.object, { conditionType: 'Remote' });
        if (passes.length === 1)
          await h.client.patch(ref('s1'), { metadata: { labels: { touched: 'yes' } } }, 'merge');
        await bound.guard('Creating', () => {
          tasks.push(passes.length);
          return { status: 'True', reason: 'Created' };
        });
      },
    });
    await h.client.create(widget('s1'));
    await eventually(() => tasks.length >= 1, 5_000, 'the task on a fresh object');
    expect(tasks[0]).toBeGreaterThanOrEqual(2);
    expect(await metricValue(c.metrics, 'controller_runtime_reconcile_errors_total', {})).toBe(0);
    expect(
      await metricValue(c.metrics, 'controller_runtime_reconcile_total', { result: 'requeue_after' }),
    ).toBeGreaterThanOrEqual(1);
    expect((await eventsAbout(h, 's1')).filter((e) => e.type === 'Warning')).toEqual([]);
    const live = await h.client.get<W>(ref('s1'));
    expect(live.status?.conditions?.map((x: { type: string }) => x.type)).toEqual(['Remote']);
    expect(live.status?.conditions?.[0]).toMatchObject({ status: 'True', reason: 'Created' });
  });

  it('C11: a held lock → ConditionLockedError → requeued ≈ 1 s, task not run while locked, no Warning Event', async () => {
    const w = await h.client.create<W>(widget('l1'));
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await h.client.replaceStatus<W>({
      ...w,
      status: {
        conditions: [
          {
            type: 'Remote',
            status: 'Unknown',
            reason: 'Locked',
            message: 'other pass',
            lastTransitionTime: now,
          },
        ],
      },
    });
    const passes: number[] = [];
    let tasks = 0;
    const c = await start('locked', {
      reconcile: async (ctx, req) => {
        passes.push(performance.now());
        await bindObject(ctx, req.object, { conditionType: 'Remote' }).guard('Creating', () => {
          tasks += 1;
          return { status: 'True', reason: 'Created' };
        });
      },
    });
    await eventually(() => passes.length >= 2, 5_000, 'a second pass');
    expect(passes[1]! - passes[0]!).toBeGreaterThanOrEqual(900);
    expect(passes[1]! - passes[0]!).toBeLessThan(2_500);
    expect(tasks).toBe(0);
    expect(await metricValue(c.metrics, 'controller_runtime_reconcile_errors_total', {})).toBe(0);
    expect((await eventsAbout(h, 'l1')).filter((e) => e.type === 'Warning')).toEqual([]);
  });
});
