// The engine's contract where a watch is involved — finalizer add/remove, keepFinalizer on delete, pause,
// terminal errors and attempts against real changes of the object, the engine's own finalizer patch past
// a predicate — against a ControllerCore with a scripted pass body, watching Widgets on the spec
// harness's server (embedded; the shared kube-apiserver under `make test-real`).
import { describe, expect, it } from 'vitest';
import type { ControllerCore } from '../../lib/engine/controller-core.js';
import { predicates } from '../../lib/engine/predicates.js';
import { TerminalError } from '../../lib/engine/terminal-error.js';
import { isNotFound } from '../../lib/kube/api-error.js';
import { eventually, ref, useHarness, widget, WIDGET, type Widget } from '../crud/harness.js';
import { FakeBody, FINALIZER, watchingCore, type CoreOptions } from './engine-support.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('ControllerCore watching a kind, with a scripted pass body', () => {
  const t = useHarness();

  async function start(body: FakeBody, options: CoreOptions = {}): Promise<ControllerCore<Widget>> {
    const core = watchingCore(t.h.kubeConfig, body, options);
    t.stops.push(() => core.stop());
    await core.start();
    return core;
  }

  const get = (name: string) => t.h.client.get<Widget>(ref(name));
  const gone = async (name: string): Promise<boolean> => {
    try {
      await get(name);
      return false;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  };

  describe('finalizer', () => {
    it('adds its finalizer before the first apply, which sees the object carrying it', async () => {
      const body = new FakeBody();
      await start(body);
      await t.h.client.create(widget('w1'));
      await eventually(() => body.of('apply', 'default/w1').length >= 1);
      expect((await get('w1')).metadata?.finalizers).toEqual([FINALIZER]);
      expect(body.of('apply').every((c) => c.finalizers.includes(FINALIZER))).toBe(true);
    });

    it('runs cleanup on deletion, then removes its finalizer so the object goes', async () => {
      const body = new FakeBody();
      await start(body);
      await t.h.client.create(widget('w1'));
      await eventually(() => body.of('apply', 'default/w1').length >= 1);
      await t.h.client.delete(ref('w1'));
      await eventually(() => gone('w1'), 5_000, 'the object gone');
      const cleanups = body.of('cleanup', 'default/w1');
      expect(cleanups).toHaveLength(1);
      expect(cleanups[0]).toMatchObject({ deleting: true, gone: false, finalizers: [FINALIZER] });
      await eventually(() => body.forgotten.includes('default/w1'), 5_000, 'the body told to forget the key');
    });

    it('keeps its finalizer while cleanup answers keepFinalizer, retrying until cleanup is done', async () => {
      const body = new FakeBody();
      let keep = true;
      body.cleanup = () => (keep ? { kind: 'keepFinalizer' } : undefined);
      await start(body);
      await t.h.client.create(widget('w1'));
      await eventually(() => body.of('apply', 'default/w1').length >= 1);
      await t.h.client.delete(ref('w1'));
      await eventually(() => body.of('cleanup', 'default/w1').length >= 3, 5_000, 'three cleanups');
      const terminating = await get('w1');
      expect(terminating.metadata?.deletionTimestamp).toBeDefined();
      expect(terminating.metadata?.finalizers).toEqual([FINALIZER]);
      keep = false;
      await eventually(() => gone('w1'), 5_000, 'the object gone');
    });

    it('keeps its finalizer when cleanup fails, and removes it after a later success', async () => {
      const body = new FakeBody();
      let failures = 2;
      body.cleanup = () => {
        if (failures-- > 0) throw new Error('cleanup failed');
        return undefined;
      };
      await start(body);
      await t.h.client.create(widget('w1'));
      await eventually(() => body.of('apply', 'default/w1').length >= 1);
      await t.h.client.delete(ref('w1'));
      await eventually(() => gone('w1'), 5_000, 'the object gone');
      expect(body.of('cleanup', 'default/w1').map((c) => c.attempt)).toEqual([0, 1, 2]);
    });

    it('adds no finalizer to an object the body does not own (plan undefined)', async () => {
      const body = new FakeBody();
      body.ours = (obj) => obj.metadata?.name !== 'foreign';
      await start(body);
      await t.h.client.create(widget('foreign'));
      await t.h.client.create(widget('mine'));
      await eventually(() => body.of('apply', 'default/mine').length >= 1);
      await sleep(100);
      expect((await get('foreign')).metadata?.finalizers).toBeUndefined();
      expect(body.of('apply', 'default/foreign')).toEqual([]);
    });

    it('runs the next pass after its own finalizer patch even when a predicate filters that update', async () => {
      const body = new FakeBody();
      // generationChanged drops metadata-only updates, the finalizer patch among them.
      await start(body, { predicates: [predicates.generationChanged()] });
      await t.h.client.create(widget('w1'));
      await eventually(() => body.of('apply', 'default/w1').length >= 1, 5_000, 'the first apply');
    });
  });

  describe('pause', () => {
    it('neither adds its finalizer nor calls the body for a paused object, until it is unpaused', async () => {
      const body = new FakeBody();
      await start(body);
      await t.h.client.create(widget('w1', { annotations: { 'reconcilekit.io/paused': 'true' } }));
      await t.h.client.create(widget('w2'));
      await eventually(() => body.of('apply', 'default/w2').length >= 1);
      await sleep(100);
      expect(body.of('apply', 'default/w1')).toEqual([]);
      expect((await get('w1')).metadata?.finalizers).toBeUndefined();
      await t.h.client.patch(
        ref('w1'),
        { metadata: { annotations: { 'reconcilekit.io/paused': null } } },
        'merge',
      );
      await eventually(() => body.of('apply', 'default/w1').length >= 1, 5_000, 'the apply after unpausing');
    });

    it('does not run cleanup for a paused object being deleted: it stays Terminating with the finalizer', async () => {
      const body = new FakeBody();
      await start(body);
      await t.h.client.create(widget('w1'));
      await eventually(() => body.of('apply', 'default/w1').length >= 1);
      await t.h.client.patch(
        ref('w1'),
        { metadata: { annotations: { 'reconcilekit.io/paused': 'true' } } },
        'merge',
      );
      await t.h.client.delete(ref('w1'));
      await sleep(200);
      expect(body.of('cleanup', 'default/w1')).toEqual([]);
      expect((await get('w1')).metadata?.finalizers).toEqual([FINALIZER]);
      await t.h.client.patch(
        ref('w1'),
        { metadata: { annotations: { 'reconcilekit.io/paused': 'false' } } },
        'merge',
      );
      await eventually(() => gone('w1'), 5_000, 'the object gone after unpausing');
      expect(body.of('cleanup', 'default/w1')).toHaveLength(1);
    });
  });

  describe('terminal errors and attempts against changes of the object', () => {
    it('after a TerminalError waits out status-only writes and runs again, at attempt 0, on a spec change', async () => {
      const body = new FakeBody();
      body.apply = (obj) => {
        if (obj.spec?.size === -1) throw new TerminalError('spec.size must be positive');
        return undefined;
      };
      await start(body);
      await t.h.client.create(widget('w1', {}, { size: -1 }));
      await eventually(() => body.of('apply', 'default/w1').length >= 1);
      await sleep(100);
      expect(body.of('apply', 'default/w1')).toHaveLength(1);
      await t.h.client.patch(ref('w1'), { status: { note: 'written by someone else' } }, 'merge', {
        subresource: 'status',
      });
      await sleep(200);
      expect(body.of('apply', 'default/w1')).toHaveLength(1);
      await t.h.client.patch(ref('w1'), { spec: { size: 3 } }, 'merge');
      await eventually(() => body.of('apply', 'default/w1').length >= 2, 5_000, 'the pass after the fix');
      expect(body.of('apply', 'default/w1')[1]?.attempt).toBe(0);
    });

    it('with a RetryPolicy that gave up, a spec change runs the key again at attempt 0', async () => {
      const body = new FakeBody();
      body.apply = (obj) => {
        if (obj.spec?.ok !== true) throw new Error('not yet');
        return undefined;
      };
      const asked: number[] = [];
      await start(body, {
        config: {
          retryPolicy: (_err, attempt) => {
            asked.push(attempt);
            return attempt < 1 ? { retry: true, delayMs: 20 } : { retry: false };
          },
        },
      });
      await t.h.client.create(widget('w1'));
      await eventually(() => asked.length === 2, 5_000, 'the policy giving up');
      await sleep(100);
      expect(body.of('apply', 'default/w1').map((c) => c.attempt)).toEqual([0, 1]);
      await t.h.client.patch(ref('w1'), { spec: { ok: true } }, 'merge');
      await eventually(() => body.of('apply', 'default/w1').length === 3, 5_000, 'the pass after the change');
      expect(body.of('apply', 'default/w1')[2]?.attempt).toBe(0);
    });
  });

  it('watches only its kind: the core caches it and hands the pass the latest object', async () => {
    const body = new FakeBody();
    const core = await start(body);
    await t.h.client.create(widget('w1', {}, { v: 1 }));
    await eventually(() => body.of('apply', 'default/w1').length >= 1);
    await t.h.client.patch(ref('w1'), { spec: { v: 2 } }, 'merge');
    const latest = await eventually(async () => {
      const rv = (await get('w1')).metadata?.resourceVersion;
      return body.of('apply', 'default/w1').some((c) => c.version === rv) ? rv : undefined;
    });
    expect(core.cache(WIDGET.kind)?.get('default/w1')?.metadata?.resourceVersion).toBe(latest);
  });
});
