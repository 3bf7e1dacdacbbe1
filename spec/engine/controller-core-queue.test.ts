// The engine's contract on the queue side — per-key exclusion, coalescing, requeueAfter, keepFinalizer,
// retries (rate limiter and RetryPolicy), terminal errors and the reconcile timeout — against a
// ControllerCore with a scripted pass body, fed through updateFunc/deleteFunc (no server), on fake time.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ControllerCore } from '../../lib/engine/controller-core.js';
import { isReconcileTimeout } from '../../lib/engine/reconcile-timeout-error.js';
import type { RetryDecision } from '../../lib/engine/retry-policy.js';
import { TerminalError } from '../../lib/engine/terminal-error.js';
import type { Widget } from '../crud/harness.js';
import { dropInCore, dropInWidget, FakeBody, type CoreOptions } from './engine-support.js';

const A = 'default/a';
const B = 'default/b';

/** A promise the spec settles by hand. */
function gate(): { promise: Promise<undefined>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<undefined>((resolve) => {
    open = () => {
      resolve(undefined);
    };
  });
  return { promise, open };
}

describe('ControllerCore with a scripted pass body (drop-in, fake time)', () => {
  let core: ControllerCore<Widget> | undefined;
  let body: FakeBody;
  let t0: number;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    t0 = Date.now();
    body = new FakeBody();
  });

  afterEach(async () => {
    const stopping = core?.stop();
    await vi.runAllTimersAsync();
    await stopping;
    core = undefined;
    vi.useRealTimers();
  });

  async function start(options: CoreOptions = {}): Promise<ControllerCore<Widget>> {
    core = dropInCore(body, options);
    await core.start();
    return core;
  }

  const feed = (name: string, v: string): void => {
    core?.updateFunc(`default/${name}`, dropInWidget(name, v));
  };

  /** Lets promises and due timers run (fake time moves by `ms`). */
  const advance = async (ms: number): Promise<void> => {
    await vi.advanceTimersByTimeAsync(ms);
  };

  /** Offsets (ms from the spec's start) of the body's calls for `key`. */
  const times = (key: string): number[] => body.of('apply', key).map((c) => c.at - t0);

  describe('per-key exclusion and coalescing', () => {
    it('never runs two passes on one key at once, while other keys run beside it', async () => {
      const held = gate();
      body.apply = (obj) => (obj.metadata?.name === 'a' ? held.promise : undefined);
      await start({ config: { workers: 4, minReconcileIntervalMs: 0 } });
      feed('a', '1');
      await advance(0);
      for (let v = 2; v <= 5; v++) {
        feed('a', String(v));
        feed('b', String(v));
        await advance(1);
      }
      // Four workers are free, yet the changes to a wait for its running pass; b runs meanwhile.
      expect(body.of('apply', A)).toHaveLength(1);
      expect(body.of('apply', B).length).toBeGreaterThanOrEqual(1);
      expect(body.maxInAll).toBe(2);
      held.open();
      await advance(10);
      expect(body.maxPerKey).toBe(1);
    });

    it('runs a key changed during its pass exactly once more, on the latest object', async () => {
      const held = gate();
      let first = true;
      body.apply = () => {
        if (!first) return undefined;
        first = false;
        return held.promise;
      };
      await start({ config: { minReconcileIntervalMs: 0 } });
      feed('a', '1');
      await advance(0);
      for (let v = 2; v <= 6; v++) feed('a', String(v));
      held.open();
      await advance(1_000);
      expect(body.of('apply', A).map((c) => c.version)).toEqual(['1', '6']);
    });

    it('deduplicates changes while the key waits: updates before start give one pass of the latest', async () => {
      core = dropInCore(body);
      for (let v = 1; v <= 3; v++) feed('a', String(v));
      await core.start();
      await advance(1_000);
      expect(body.of('apply', A).map((c) => c.version)).toEqual(['3']);
    });

    it('runs an idle key at once, and a key changed right after its pass minReconcileIntervalMs after the last start', async () => {
      await start({ config: { minReconcileIntervalMs: 100 } });
      feed('a', '1');
      await advance(0);
      feed('a', '2');
      await advance(99);
      expect(times(A)).toEqual([0]);
      await advance(1);
      expect(times(A)).toEqual([0, 100]);
    });
  });

  describe('verdicts', () => {
    it('requeueAfter runs the key again after exactly delayMs, not counted as a failure', async () => {
      body.apply = () => ({ kind: 'requeueAfter', delayMs: 30_000 });
      const c = await start();
      feed('a', '1');
      await advance(29_999);
      expect(times(A)).toEqual([0]);
      await advance(1);
      expect(times(A)).toEqual([0, 30_000]);
      expect(body.of('apply', A).map((x) => x.attempt)).toEqual([0, 0]);
      const text = await c.metrics.metrics();
      expect(text).toContain(
        'controller_runtime_reconcile_total{controller="engine-spec",result="requeue_after"} 2',
      );
      expect(text).toContain('controller_runtime_reconcile_errors_total{controller="engine-spec"} 0');
    });

    it('keepFinalizer requeues with the per-key backoff (5, 10, 20 ms …) and is not a failure', async () => {
      body.apply = () => ({ kind: 'keepFinalizer' });
      const c = await start();
      feed('a', '1');
      await advance(40);
      expect(times(A)).toEqual([0, 5, 15, 35]);
      expect(body.of('apply', A).every((x) => x.attempt === 0)).toBe(true);
      const text = await c.metrics.metrics();
      expect(text).toContain(
        'controller_runtime_reconcile_total{controller="engine-spec",result="requeue"} 4',
      );
      expect(text).toContain('controller_runtime_reconcile_errors_total{controller="engine-spec"} 0');
    });
  });

  describe('retries', () => {
    it('without a retryPolicy retries a failing key with the per-key backoff, counting attempts', async () => {
      body.apply = () => {
        throw new Error('boom');
      };
      await start();
      feed('a', '1');
      await advance(80);
      expect(times(A)).toEqual([0, 5, 15, 35, 75]);
      expect(body.of('apply', A).map((c) => c.attempt)).toEqual([0, 1, 2, 3, 4]);
    });

    it('a success resets the attempt count and the backoff', async () => {
      let n = 0;
      body.apply = () => {
        n += 1;
        if (n === 3) return undefined;
        throw new Error(`failure ${n}`);
      };
      await start({ config: { minReconcileIntervalMs: 0 } });
      feed('a', '1');
      await advance(100);
      expect(times(A)).toEqual([0, 5, 15]);
      feed('a', '2');
      await advance(16);
      // Fresh after the success: attempt 0, then the backoff from its first step (5 ms) again.
      expect(times(A).slice(3)).toEqual([100, 105, 115]);
      expect(body.of('apply', A).map((c) => c.attempt)).toEqual([0, 1, 2, 0, 1, 2]);
    });

    it('asks the RetryPolicy with the error and the attempt, and waits the delay it returns', async () => {
      const asked: { message: string; attempt: number }[] = [];
      body.apply = (_obj, info) => {
        throw new Error(`failure at attempt ${info.attempt}`);
      };
      await start({
        config: {
          retryPolicy: (err, attempt): RetryDecision => {
            asked.push({ message: (err as Error).message, attempt });
            return attempt < 2 ? { retry: true, delayMs: 1_000 * (attempt + 1) } : { retry: false };
          },
        },
      });
      feed('a', '1');
      await advance(60_000);
      expect(times(A)).toEqual([0, 1_000, 3_000]);
      expect(asked).toEqual([
        { message: 'failure at attempt 0', attempt: 0 },
        { message: 'failure at attempt 1', attempt: 1 },
        { message: 'failure at attempt 2', attempt: 2 },
      ]);
    });

    it('a RetryPolicy that gives up leaves the key alone until it is enqueued again', async () => {
      body.apply = () => {
        throw new Error('boom');
      };
      const c = await start({ config: { retryPolicy: () => ({ retry: false }) } });
      feed('a', '1');
      await advance(3_600_000);
      expect(times(A)).toEqual([0]);
      c.enqueue(A);
      await advance(0);
      expect(times(A)).toEqual([0, 3_600_000]);
    });

    it('a RetryPolicy that throws falls back to the per-key backoff', async () => {
      body.apply = () => {
        throw new Error('boom');
      };
      await start({
        config: {
          retryPolicy: () => {
            throw new Error('policy bug');
          },
        },
      });
      feed('a', '1');
      await advance(20);
      expect(times(A)).toEqual([0, 5, 15]);
    });

    it('a RetryPolicy delay that is not a finite number >= 0 counts as giving up', async () => {
      body.apply = () => {
        throw new Error('boom');
      };
      await start({ config: { retryPolicy: () => ({ retry: true, delayMs: Number.NaN }) } });
      feed('a', '1');
      await advance(600_000);
      expect(times(A)).toEqual([0]);
    });

    it('a failing key does not hold up the other keys', async () => {
      body.apply = (obj) => {
        if (obj.metadata?.name === 'a') throw new Error('boom');
        return undefined;
      };
      await start({ config: { minReconcileIntervalMs: 0 } });
      feed('a', '1');
      for (let v = 1; v <= 3; v++) {
        feed('b', String(v));
        await advance(1);
      }
      expect(body.of('apply', B).map((c) => c.version)).toEqual(['1', '2', '3']);
    });
  });

  describe('terminal errors', () => {
    it('a TerminalError is not retried, and the RetryPolicy is not asked', async () => {
      let asked = 0;
      body.apply = () => {
        throw new TerminalError('spec.size must be positive');
      };
      const c = await start({
        config: {
          retryPolicy: () => {
            asked += 1;
            return { retry: true, delayMs: 10 };
          },
        },
      });
      feed('a', '1');
      await advance(600_000);
      expect(times(A)).toEqual([0]);
      expect(asked).toBe(0);
      const text = await c.metrics.metrics();
      expect(text).toContain(
        'controller_runtime_terminal_reconcile_errors_total{controller="engine-spec"} 1',
      );
    });

    it('a TerminalError as the cause of another error is terminal too', async () => {
      body.apply = () => {
        throw new Error('wrapped', { cause: new TerminalError('invalid') });
      };
      await start();
      feed('a', '1');
      await advance(600_000);
      expect(times(A)).toEqual([0]);
    });

    it('a terminally failed key is skipped when enqueued without a change', async () => {
      body.apply = () => {
        throw new TerminalError('invalid');
      };
      const c = await start();
      feed('a', '1');
      await advance(1_000);
      c.enqueue(A);
      await advance(1_000);
      expect(times(A)).toEqual([0]);
    });

    // As on the watch path, a fresh change through updateFunc resets the FailureLedger.
    it('a terminally failed key runs again once a changed object arrives through updateFunc', async () => {
      let n = 0;
      body.apply = () => {
        n += 1;
        if (n === 1) throw new TerminalError('invalid');
        return undefined;
      };
      await start();
      feed('a', '1');
      await advance(1_000);
      feed('a', '2');
      await advance(1_000);
      expect(body.of('apply', A).map((c) => c.version)).toEqual(['1', '2']);
    });

    it('a changed object through updateFunc starts again at attempt 0', async () => {
      body.apply = () => {
        throw new Error('boom');
      };
      await start({ config: { retryPolicy: () => ({ retry: false }) } });
      feed('a', '1');
      await advance(1_000);
      feed('a', '2');
      await advance(1_000);
      expect(body.of('apply', A).map((c) => c.attempt)).toEqual([0, 0]);
    });
  });

  describe('reconcile timeout', () => {
    it('aborts a pass after reconcileTimeoutMs with a ReconcileTimeoutError and retries it as a failure', async () => {
      const reasons: unknown[] = [];
      body.apply = (_obj, _info, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            reasons.push(ctx.signal.reason);
            reject(ctx.signal.reason as Error);
          });
        });
      const c = await start({ config: { reconcileTimeoutMs: 1_000 } });
      feed('a', '1');
      await advance(999);
      expect(reasons).toEqual([]);
      await advance(1);
      expect(reasons).toHaveLength(1);
      expect(isReconcileTimeout(reasons[0])).toBe(true);
      // The failure's backoff (5 ms), then the second pass, attempt 1.
      await advance(5);
      expect(times(A)).toEqual([0, 1_005]);
      expect(body.of('apply', A)[1]?.attempt).toBe(1);
      const text = await c.metrics.metrics();
      expect(text).toContain('controller_runtime_reconcile_errors_total{controller="engine-spec"} 1');
    });

    it('frees the worker at the timeout even when the pass ignores its signal', async () => {
      body.apply = (obj) =>
        obj.metadata?.name === 'a' ? new Promise<undefined>(() => undefined) : undefined;
      await start({ config: { reconcileTimeoutMs: 1_000, workers: 1 } });
      feed('a', '1');
      await advance(0);
      feed('b', '1');
      await advance(500);
      expect(body.of('apply', B)).toHaveLength(0);
      await advance(500);
      expect(times(B)).toEqual([1_000]);
    });
  });

  describe('pause and plan', () => {
    it('does not call the body for a paused object, and does once the annotation is gone', async () => {
      await start();
      core?.updateFunc(A, dropInWidget('a', '1', { annotations: { 'reconcilekit.io/paused': 'true' } }));
      await advance(1_000);
      expect(body.calls).toHaveLength(0);
      feed('a', '2');
      await advance(1_000);
      expect(body.of('apply', A).map((c) => c.version)).toEqual(['2']);
    });

    it('a plan of undefined ("not ours") is a quiet success: no call, no retry', async () => {
      body.ours = () => false;
      const c = await start();
      feed('a', '1');
      await advance(60_000);
      expect(body.calls).toHaveLength(0);
      const text = await c.metrics.metrics();
      expect(text).toContain(
        'controller_runtime_reconcile_total{controller="engine-spec",result="success"} 1',
      );
    });

    it('a drop-in deletion runs cleanup with the last known object (gone) and then forgets the key', async () => {
      await start();
      feed('a', '1');
      await advance(1_000);
      core?.deleteFunc(A, dropInWidget('a', '1'));
      await advance(1_000);
      expect(
        body.of('cleanup', A).map((c) => ({ v: c.version, deleting: c.deleting, gone: c.gone })),
      ).toEqual([{ v: '1', deleting: true, gone: true }]);
      expect(body.forgotten).toEqual([A]);
    });
  });
});
