import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CannotCastError,
  exponentialBackoffRetryPolicy,
  InformerAlreadyAddedError,
  InformerController,
  InvalidConfigError,
  isCannotCast,
  NilObjectError,
  opinionatedRetryDequeuePolicy,
  ReconcileError,
  SimpleReconciler,
  SimpleWatcher,
  TypedReconciler,
  type ReconcileContext,
} from '../../lib/index.js';
import {
  eventually,
  makeController,
  recordReq,
  ref,
  sleep,
  SOURCE,
  startHarness,
  widget,
  type Call,
  type Harness,
  type Widget,
} from './support.js';
import { GROUP } from '../crud/harness.js';

describe('InformerController on the embedded API server', () => {
  let h: Harness;
  const controllers: InformerController[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    await h.close();
  });

  it('B1: per event the watcher runs before the reconciler; actions created, updated, deleted', async () => {
    const calls: Call[] = [];
    const c = makeController(h, {}, controllers);
    c.addInformer(SOURCE, 'widgets');
    c.addWatcher(
      new SimpleWatcher({
        add: (_ctx, obj) =>
          void calls.push({
            who: 'W',
            action: 'add',
            name: obj.metadata?.name,
            version: obj.metadata?.resourceVersion,
            at: 0,
          }),
        update: (_ctx, old, obj) =>
          void calls.push({
            who: 'W',
            action: 'update',
            name: obj.metadata?.name,
            version: obj.metadata?.resourceVersion,
            oldVersion: old.metadata?.resourceVersion,
            at: 0,
          }),
        delete: (_ctx, obj) =>
          void calls.push({
            who: 'W',
            action: 'delete',
            name: obj.metadata?.name,
            version: obj.metadata?.resourceVersion,
            at: 0,
          }),
      }),
      'widgets',
    );
    c.addReconciler(
      new SimpleReconciler((_ctx, req) => {
        recordReq(calls, 'R', req);
      }),
      'widgets',
    );
    await c.start();
    await h.client.create(widget('w1', {}, { size: 1 }));
    await eventually(() => calls.length === 2);
    await h.client.patch(ref('w1'), { spec: { size: 2 } }, 'merge');
    await eventually(() => calls.length === 4);
    await h.client.delete(ref('w1'));
    await eventually(() => calls.length === 6);
    expect(calls.map((x) => `${x.who}:${x.action}`)).toEqual([
      'W:add',
      'R:created',
      'W:update',
      'R:updated',
      'W:delete',
      'R:deleted',
    ]);
    const upd = calls[2]!;
    expect(Number(upd.oldVersion)).toBeLessThan(Number(upd.version));
    // The delete delivers the last known object (the deletion's own resourceVersion, not older).
    expect(calls[4]!.name).toBe('w1');
    expect(Number(calls[4]!.version)).toBeGreaterThanOrEqual(Number(calls[2]!.version));
  });

  it('B3: requeueAfter with state → exactly 2 calls, the 2nd sees the state and attempt 0; no error reported', async () => {
    const calls: Call[] = [];
    const errors: unknown[] = [];
    const c = makeController(h, { errorHandler: (_ctx, err) => void errors.push(err) }, controllers);
    c.addInformer(SOURCE, 'widgets');
    c.addReconciler(
      new SimpleReconciler((_ctx, req) => {
        recordReq(calls, 'R', req);
        return calls.length === 1 ? { requeueAfterMs: 100, state: { a: 1 } } : {};
      }),
      'widgets',
    );
    await c.start();
    await h.client.create(widget('w1'));
    await eventually(() => calls.length === 2);
    await sleep(300);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({ action: 'created', state: { a: 1 }, attempt: 0 });
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(95);
    expect(errors).toEqual([]);
    expect(c.pendingObjects).toBe(0);
  });

  it('B4: state from every failed call reaches the next (upstream kept only the first)', async () => {
    const calls: Call[] = [];
    const c = makeController(h, { retryPolicy: exponentialBackoffRetryPolicy(20, 5) }, controllers);
    c.addInformer(SOURCE, 'widgets');
    c.addReconciler(
      new SimpleReconciler((_ctx, req) => {
        recordReq(calls, 'R', req);
        if (calls.length < 3) throw new ReconcileError('x', { state: { n: calls.length } });
      }),
      'widgets',
    );
    await c.start();
    await h.client.create(widget('w1'));
    await eventually(() => calls.length === 3);
    await sleep(200);
    expect(calls.map((x) => [x.state, x.attempt])).toEqual([
      [undefined, 0],
      [{ n: 1 }, 1],
      [{ n: 2 }, 2],
    ]);
  });

  it('B5: without a dequeue policy a new event drops the pending create retry', async () => {
    const calls: Call[] = [];
    const c = makeController(
      h,
      { retryPolicy: exponentialBackoffRetryPolicy(400, 5), errorHandler: () => undefined },
      controllers,
    );
    c.addInformer(SOURCE, 'widgets');
    c.addReconciler(
      new SimpleReconciler((_ctx, req) => {
        recordReq(calls, 'R', req);
        if (req.action === 'created') throw new Error('create fails');
      }),
      'widgets',
    );
    await c.start();
    await h.client.create(widget('w1', {}, { v: 1 }));
    await eventually(() => calls.length === 1);
    await h.client.patch(ref('w1'), { spec: { v: 2 } }, 'merge');
    await eventually(() => calls.length === 2);
    await sleep(700);
    expect(calls.map((x) => x.action)).toEqual(['created', 'updated']);
    expect(c.pendingObjects).toBe(0);
  });

  it('B6: with opinionatedRetryDequeuePolicy the create retry survives an update; a delete drops it', async () => {
    const calls: Call[] = [];
    const c = makeController(
      h,
      {
        retryPolicy: exponentialBackoffRetryPolicy(400, 5),
        retryDequeuePolicy: opinionatedRetryDequeuePolicy,
        errorHandler: () => undefined,
      },
      controllers,
    );
    c.addInformer(SOURCE, 'widgets');
    let failCreate = true;
    c.addReconciler(
      new SimpleReconciler((_ctx, req) => {
        recordReq(calls, 'R', req);
        if (req.action === 'created' && failCreate) throw new Error('create fails');
      }),
      'widgets',
    );
    await c.start();
    await h.client.create(widget('w1', {}, { v: 1 }));
    await eventually(() => calls.length === 1);
    await h.client.patch(ref('w1'), { spec: { v: 2 } }, 'merge');
    await eventually(() => calls.length === 3, 3000);
    expect(calls.map((x) => x.action)).toEqual(['created', 'updated', 'created']);
    expect(calls[2]!.at - calls[0]!.at).toBeGreaterThanOrEqual(390);
    // Still failing: a retry is pending; the delete drops it.
    expect(c.pendingObjects).toBe(1);
    failCreate = true;
    await h.client.delete(ref('w1'));
    await eventually(() => calls.some((x) => x.action === 'deleted'));
    await sleep(1000);
    expect(calls.map((x) => x.action)).toEqual(['created', 'updated', 'created', 'deleted']);
    expect(c.pendingObjects).toBe(0);
  });

  it('B7/B8: a second reconciler retry does not re-run the first; removing a reconciler drops its retries', async () => {
    const calls: Call[] = [];
    const c = makeController(
      h,
      { retryPolicy: exponentialBackoffRetryPolicy(50, 5), errorHandler: () => undefined },
      controllers,
    );
    c.addInformer(SOURCE, 'widgets');
    const r1 = new SimpleReconciler((_ctx, req) => {
      recordReq(calls, 'R1', req);
    });
    let r2Fails = 1;
    const r2 = new SimpleReconciler((_ctx, req) => {
      recordReq(calls, 'R2', req);
      if (r2Fails-- > 0) throw new Error('once');
    });
    const r3 = new SimpleReconciler((_ctx, req) => {
      recordReq(calls, 'R3', req);
      throw new Error('always');
    });
    c.addReconciler(r1, 'widgets');
    c.addReconciler(r2, 'widgets');
    c.addReconciler(r3, 'widgets');
    await c.start();
    await h.client.create(widget('w1'));
    await eventually(() => calls.filter((x) => x.who === 'R2').length === 2);
    expect(calls.filter((x) => x.who === 'R1')).toHaveLength(1);
    c.removeReconciler(r3, 'widgets');
    const r3Calls = calls.filter((x) => x.who === 'R3').length;
    await sleep(500);
    expect(calls.filter((x) => x.who === 'R3')).toHaveLength(r3Calls);
    expect(calls.filter((x) => x.who === 'R1')).toHaveLength(1);
    expect(c.pendingObjects).toBe(0);
    // The others still get new events.
    await h.client.patch(ref('w1'), { spec: { v: 2 } }, 'merge');
    await eventually(() => calls.filter((x) => x.who === 'R1').length === 2);
  });

  it('B9: two namespace partitions feed one kind; labelFilters keep unlabelled objects out', async () => {
    for (const ns of ['a', 'b', 'c']) {
      await h.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
    const seen: string[] = [];
    const c = makeController(h, {}, controllers);
    c.addInformer({ ...SOURCE, namespace: 'a' }, 'widgets');
    c.addInformer({ ...SOURCE, namespace: 'b' }, 'widgets');
    c.addInformer({ ...SOURCE, namespace: 'c', labelFilters: ['team=x'] }, 'widgets');
    expect(() => {
      c.addInformer({ ...SOURCE, namespace: 'a' }, 'widgets');
    }).toThrow(InformerAlreadyAddedError);
    c.addReconciler(
      new SimpleReconciler((_ctx, req) => void seen.push(`${req.action}:${req.key}`)),
      'widgets',
    );
    await c.start();
    const mk = (ns: string, name: string, labels?: Record<string, string>): Widget => ({
      ...widget(name),
      metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
    });
    await h.client.create(mk('a', 'wa'));
    await h.client.create(mk('b', 'wb'));
    await h.client.create(mk('c', 'plain'));
    await h.client.create(mk('c', 'labelled', { team: 'x' }));
    await eventually(() => seen.length === 3);
    await sleep(200);
    expect(seen.sort()).toEqual(['created:a/wa', 'created:b/wb', 'created:c/labelled']);
  });

  it('B15 and bad handlers: guard rejection, sync throw and rejected promise go to errorHandler; other objects flow', async () => {
    const errors: { err: unknown; name: string | undefined }[] = [];
    const ok: string[] = [];
    const c = makeController(
      h,
      {
        retryPolicy: null,
        errorHandler: (ctx: ReconcileContext, err) => void errors.push({ err, name: undefined }),
      },
      controllers,
    );
    c.addInformer(SOURCE, 'widgets');
    c.addWatcher(
      new SimpleWatcher({
        add: (_ctx, obj) => {
          if (obj.metadata?.name === 'sync-throw') throw new Error('sync throw');
          if (obj.metadata?.name === 'rejects') return Promise.reject(new Error('rejected'));
        },
      }),
      'widgets',
    );
    c.addReconciler(
      new TypedReconciler<Widget & { spec: { size: number } }>({
        is: (o): o is Widget & { spec: { size: number } } => typeof (o as Widget).spec?.size === 'number',
        reconcile: (_ctx, req) => void ok.push(req.object.metadata!.name!),
      }),
      'widgets',
    );
    await c.start();
    await h.client.create(widget('sync-throw', {}, { size: 1 }));
    await h.client.create(widget('rejects', {}, { size: 1 }));
    await h.client.create(widget('untyped', {}, { size: 'big' }));
    await h.client.create(widget('fine', {}, { size: 3 }));
    await eventually(() => errors.length === 3 && ok.length === 3);
    const messages = errors.map((e) => (e.err as Error).message);
    expect(messages).toEqual(expect.arrayContaining(['sync throw', 'rejected']));
    const cast = errors.find((e) => isCannotCast(e.err))?.err as CannotCastError;
    expect(cast).toBeInstanceOf(CannotCastError);
    expect(cast).toMatchObject({
      namespace: 'default',
      name: 'untyped',
      group: GROUP,
      kind: 'Widget',
    });
    expect(ok.sort()).toEqual(['fine', 'rejects', 'sync-throw']);
  });

  it('bad input: empty kind, watcher without methods, no reconcile, null handler', () => {
    const c = makeController(h, {}, controllers);
    expect(() => {
      c.addInformer(SOURCE, '');
    }).toThrow(InvalidConfigError);
    expect(() => {
      c.addWatcher(new SimpleWatcher(), ' ');
    }).toThrow(/resourceKind must be a non-empty string/);
    expect(() => {
      c.addWatcher({}, 'widgets');
    }).toThrow(/at least one of add/);
    expect(() => {
      c.addReconciler({} as never, 'widgets');
    }).toThrow(/reconcile\(ctx, req\)/);
    expect(() => {
      c.addReconciler(null as never, 'widgets');
    }).toThrow(NilObjectError);
    expect(() => new InformerController({ retryPolicy: 5 as never })).toThrow(InvalidConfigError);
  });
});
