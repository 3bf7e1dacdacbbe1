import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultFinalizerSupplier,
  exponentialBackoffRetryPolicy,
  InvalidConfigError,
  OpinionatedReconciler,
  OpinionatedWatcher,
  SimpleReconciler,
  type InformerController,
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

const FIN = 'test.reconcilekit.io/widgets';

describe('OpinionatedReconciler and OpinionatedWatcher', () => {
  let h: Harness;
  const controllers: InformerController[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    await h.close();
  });

  async function startWith(inner: SimpleReconciler): Promise<InformerController> {
    const c = makeController(
      h,
      { retryPolicy: exponentialBackoffRetryPolicy(50, 5), errorHandler: () => undefined },
      controllers,
    );
    c.addInformer(SOURCE, 'widgets');
    c.addReconciler(new OpinionatedReconciler({ finalizer: FIN, reconciler: inner }), 'widgets');
    await c.start();
    return c;
  }

  it('B10/B11: created then finalizer (foreign kept); after a restart the object is resynced, not created', async () => {
    const calls: Call[] = [];
    const c1 = await startWith(
      new SimpleReconciler((_ctx, req) => {
        recordReq(calls, 'R', req);
      }),
    );
    await h.client.create(widget('w1', { finalizers: ['other.example.com/keep'] }));
    await eventually(async () => {
      const w = await h.client.get<Widget>(ref('w1'));
      return w.metadata?.finalizers?.includes(FIN) === true;
    });
    const w = await h.client.get<Widget>(ref('w1'));
    expect(w.metadata?.finalizers).toEqual(['other.example.com/keep', FIN]);
    await sleep(200);
    // The update made by our own patch is not delegated again as a new creation.
    expect(calls.map((x) => x.action)).toEqual(['created', 'updated']);
    await c1.stop();
    const after: Call[] = [];
    await startWith(
      new SimpleReconciler((_ctx, req) => {
        recordReq(after, 'R', req);
      }),
    );
    await eventually(() => after.length === 1);
    expect(after[0]!.action).toBe('resynced');
  });

  it('B12: a cleanup failing twice keeps the object; it goes after the 3rd call; the final DELETED is not delegated', async () => {
    const calls: Call[] = [];
    let deleteFailures = 2;
    await startWith(
      new SimpleReconciler((_ctx, req) => {
        recordReq(calls, 'R', req);
        if (req.action === 'deleted' && deleteFailures-- > 0) throw new Error('cleanup failed');
      }),
    );
    await h.client.create(widget('w1'));
    await eventually(async () => (await h.client.get<Widget>(ref('w1'))).metadata?.finalizers?.includes(FIN));
    await h.client.delete(ref('w1'));
    await eventually(() => calls.filter((x) => x.action === 'deleted').length === 2);
    // Still there after two failures: the finalizer holds it.
    expect((await h.client.get<Widget>(ref('w1'))).metadata?.deletionTimestamp).toBeDefined();
    await eventually(async () => {
      try {
        await h.client.get(ref('w1'));
        return false;
      } catch {
        return true;
      }
    });
    await sleep(200);
    expect(calls.filter((x) => x.action === 'deleted')).toHaveLength(3);
  });

  it('B14: OpinionatedWatcher — status-only update ignored, spec update once, own patch ignored; sync on restart; delete then finalizer removed', async () => {
    const log: string[] = [];
    const mkWatcher = (): OpinionatedWatcher<Widget> =>
      new OpinionatedWatcher<Widget>({
        resource: SOURCE,
        add: (_ctx, o) => void log.push(`add:${o.metadata?.name}`),
        update: (_ctx, _old, o) => void log.push(`update:${o.metadata?.generation}`),
        delete: (_ctx, o) => void log.push(`delete:${o.metadata?.name}`),
        sync: (_ctx, o) => void log.push(`sync:${o.metadata?.name}`),
      });
    const start = async (): Promise<InformerController> => {
      const c = makeController(h, { errorHandler: () => undefined }, controllers);
      c.addInformer(SOURCE, 'widgets');
      c.addWatcher(mkWatcher(), 'widgets');
      await c.start();
      return c;
    };
    const fin = defaultFinalizerSupplier({ group: GROUP, version: 'v1', kind: 'Widget' });
    expect(fin).toBe(`operator.v1.Widget.${GROUP}`);
    const c1 = await start();
    await h.client.create(widget('w1', {}, { v: 1 }));
    await eventually(async () => (await h.client.get<Widget>(ref('w1'))).metadata?.finalizers?.includes(fin));
    const before = (await h.client.get<Widget>(ref('w1'))).metadata?.resourceVersion;
    const statusOnly = await h.client.patch(ref('w1'), { status: { seen: true } }, 'merge', {
      subresource: 'status',
    });
    expect(statusOnly.metadata?.resourceVersion).not.toBe(before);
    await sleep(150);
    expect(log).toEqual(['add:w1']);
    await h.client.patch(ref('w1'), { spec: { v: 2 } }, 'merge');
    await eventually(() => log.includes('update:2'));
    await sleep(150);
    expect(log).toEqual(['add:w1', 'update:2']);
    await c1.stop();
    await start();
    await eventually(() => log.includes('sync:w1'));
    await h.client.delete(ref('w1'));
    await eventually(() => log.includes('delete:w1'));
    await eventually(async () => {
      try {
        await h.client.get(ref('w1'));
        return false;
      } catch {
        return true;
      }
    });
    expect(log).toEqual(['add:w1', 'update:2', 'sync:w1', 'delete:w1']);
  });

  it('finalizer names are checked', () => {
    expect(() =>
      defaultFinalizerSupplier({ group: 'a'.repeat(60) + '.example.com', version: 'v1', kind: 'Widget' }),
    ).toThrow(/at most 63/);
    expect(() => new OpinionatedReconciler({ finalizer: 'bad finalizer!' })).toThrow(InvalidConfigError);
    expect(() => new OpinionatedWatcher({ resource: { apiVersion: 'v1', kind: '' } })).toThrow(
      InvalidConfigError,
    );
  });
});
