import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { reconciliationCanceled } from '../../lib/context/flags.js';
import { Framework } from '../../lib/crud/framework.js';
import { requeueAfter } from '../../lib/engine/requeue.js';
import { createLogger } from '../../lib/observability/logger.js';
import { ExponentialRateLimiter } from '../../lib/queue/rate-limiter.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import { eventually, RecordingResource, widget, type Widget } from './harness.js';

/** A framework without a watch or finalizers: objects arrive through updateFunc/deleteFunc only. */
function dropIn(recorder: RecordingResource, extra: Record<string, unknown> = {}): Framework<Widget> {
  return new Framework<Widget>({
    name: 'drop-in',
    resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
    finalizer: false,
    events: false,
    resyncPeriodMs: 0,
    logger: createLogger({ silent: true }),
    ...extra,
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('Framework fed through updateFunc/deleteFunc', () => {
  let fw: Framework<Widget> | undefined;
  afterEach(async () => {
    await fw?.stop();
    fw = undefined;
  });

  it('is level-triggered: three updates before start give one reconcile of the latest object', async () => {
    const recorder = new RecordingResource();
    fw = dropIn(recorder);
    for (const v of ['1', '2', '3']) fw.updateFunc(undefined, widget('a', { resourceVersion: v }));
    await fw.start();
    await eventually(() => recorder.count('create') === 1);
    await sleep(50);
    expect(recorder.calls).toEqual([{ op: 'create', key: 'default/a', version: '3' }]);
    expect(fw.synced).toBe(true);
    expect(fw.ready).toBe(true);
  });

  it('coalesces a burst of 200 updates to one object into a handful of reconciles, ending on the last', async () => {
    const recorder = new RecordingResource();
    recorder.onCreate = () => sleep(5);
    fw = dropIn(recorder);
    await fw.start();
    for (let i = 1; i <= 200; i++) {
      fw.updateFunc(undefined, widget('burst', { resourceVersion: String(i) }));
      if (i % 20 === 0) await sleep(1);
    }
    await eventually(() => recorder.calls.at(-1)?.version === '200', 5_000, 'the last version reconciled');
    await sleep(50);
    expect(recorder.count('create')).toBeLessThanOrEqual(25);
    expect(recorder.count('create')).toBeGreaterThanOrEqual(1);
  });

  it('never reconciles one key concurrently, with 4 workers and 20 keys updated repeatedly', async () => {
    const recorder = new RecordingResource();
    recorder.onCreate = () => sleep(Math.random() * 4);
    fw = dropIn(recorder, { workers: 4 });
    await fw.start();
    for (let round = 0; round < 10; round++) {
      for (let k = 0; k < 20; k++) fw.updateFunc(undefined, widget(`k${k}`, { resourceVersion: `${round}` }));
      await sleep(2);
    }
    await eventually(() => {
      const last = new Map(recorder.calls.map((c) => [c.key, c.version]));
      return last.size === 20 && [...last.values()].every((v) => v === '9');
    });
    expect(recorder.maxConcurrentPerKey).toBe(1);
    const text = await fw.metrics.metrics();
    expect(text).toContain('controller_runtime_max_concurrent_reconciles{controller="drop-in"} 4');
  });

  it('retries a failing object with growing delays, resets on success, and keeps the others going', async () => {
    const recorder = new RecordingResource();
    const failures: number[] = [];
    recorder.onCreate = (_ctx, obj) => {
      if (obj.metadata?.name === 'bad' && failures.length < 4) {
        failures.push(performance.now());
        throw new Error('not yet');
      }
    };
    const registry = new Registry();
    fw = dropIn(recorder, {
      registry,
      rateLimiter: new ExponentialRateLimiter({ baseDelayMs: 20, factor: 2 }),
    });
    await fw.start();
    fw.updateFunc(undefined, widget('bad'));
    fw.updateFunc(undefined, widget('good'));
    await eventually(() => recorder.count('create', 'good') === 1);
    await eventually(() => recorder.count('create', 'bad') === 5, 5_000, 'bad to succeed on the fifth run');
    const gaps = failures.slice(1).map((t, i) => t - failures[i]!);
    // 20, 40, 80 ms nominal: each wait is longer than the one before.
    // Growing: each gap at least the rate limiter's delay (20, 40, 80 ms). Lower bounds only: a loaded
    // machine stretches gaps, it never shortens them.
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[1]!).toBeGreaterThanOrEqual(35);
    expect(gaps[2]!).toBeGreaterThanOrEqual(75);
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="drop-in"} 4');
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="drop-in",result="error"\} 4/);
    expect(text).toMatch(/workqueue_retries_total\{name="drop-in",controller="drop-in"\} 4/);
  });

  it('with finalizers off runs the delete path once with the last known object', async () => {
    const recorder = new RecordingResource();
    fw = dropIn(recorder);
    await fw.start();
    fw.updateFunc(undefined, widget('gone', { uid: 'u1', resourceVersion: '7' }));
    await eventually(() => recorder.count('create') === 1);
    fw.deleteFunc(widget('gone', { uid: 'u1', resourceVersion: '8' }));
    await eventually(() => recorder.count('delete') === 1);
    fw.deleteFunc(widget('gone', { uid: 'u1', resourceVersion: '8' }));
    await sleep(50);
    expect(recorder.count('delete')).toBe(1);
    expect(recorder.calls.at(-1)).toEqual({ op: 'delete', key: 'default/gone', version: '8' });
  });

  it('skips paused objects and resumes when the annotation goes', async () => {
    const recorder = new RecordingResource();
    fw = dropIn(recorder);
    await fw.start();
    fw.updateFunc(undefined, widget('p', { annotations: { 'reconcilekit.io/paused': 'true' } }));
    fw.updateFunc(undefined, widget('q', { annotations: { 'cluster.x-k8s.io/paused': 'true' } }));
    await sleep(50);
    expect(recorder.count('create')).toBe(0);
    fw.updateFunc(undefined, widget('p', { annotations: { 'reconcilekit.io/paused': 'false' } }));
    await eventually(() => recorder.count('create', 'p') === 1);
    expect(recorder.count('create', 'q')).toBe(0);
  });

  it('re-runs every object on resync', async () => {
    const recorder = new RecordingResource();
    fw = dropIn(recorder, { resyncPeriodMs: 60 });
    await fw.start();
    fw.updateFunc(undefined, widget('r1'));
    fw.updateFunc(undefined, widget('r2'));
    await eventually(() => recorder.count('create', 'r1') >= 3 && recorder.count('create', 'r2') >= 3, 2_000);
  });

  it('requeues after the delay a resource asked for', async () => {
    const recorder = new RecordingResource();
    recorder.onCreate = (ctx) => {
      if (recorder.count('create') < 3) requeueAfter(ctx, 30);
    };
    fw = dropIn(recorder);
    await fw.start();
    fw.updateFunc(undefined, widget('poll'));
    await eventually(() => recorder.count('create') === 3);
    await sleep(80);
    expect(recorder.count('create')).toBe(3);
    expect(await fw.metrics.metrics()).toMatch(/result="requeue_after"\} 2/);
  });

  it('aborts a reconcile that exceeds reconcileTimeoutMs through its signal and retries it', async () => {
    const recorder = new RecordingResource();
    let aborted = 0;
    recorder.onCreate = (ctx) =>
      recorder.count('create') === 1
        ? new Promise<void>((_resolve, reject) => {
            ctx.signal.addEventListener('abort', () => {
              aborted += 1;
              reject(ctx.signal.reason as Error);
            });
          })
        : undefined;
    fw = dropIn(recorder, { reconcileTimeoutMs: 50 });
    await fw.start();
    fw.updateFunc(undefined, widget('slow'));
    await eventually(() => recorder.count('create') === 2, 3_000);
    expect(aborted).toBe(1);
    expect(await fw.metrics.metrics()).toContain(
      'controller_runtime_reconcile_timeouts_total{controller="drop-in"} 1',
    );
  });

  it('treats reconciliationCanceled on the update path as success', async () => {
    const recorder = new RecordingResource();
    recorder.onCreate = (ctx) => {
      reconciliationCanceled.set(ctx);
    };
    fw = dropIn(recorder);
    await fw.start();
    fw.updateFunc(undefined, widget('c'));
    await eventually(() => recorder.count('create') === 1);
    await sleep(30);
    expect(recorder.count('create')).toBe(1);
    expect(await fw.metrics.metrics()).toContain(
      'controller_runtime_reconcile_errors_total{controller="drop-in"} 0',
    );
  });
});

describe('Framework graceful shutdown', () => {
  it('lets an in-flight reconcile finish before stop() resolves, and takes no new work', async () => {
    const recorder = new RecordingResource();
    let sawAbort = false;
    let finished = false;
    let entered!: () => void;
    const inPass = new Promise<void>((r) => (entered = r));
    recorder.onCreate = async (ctx) => {
      entered();
      await sleep(150);
      sawAbort = ctx.signal.aborted;
      finished = true;
    };
    const fw = dropIn(recorder);
    await fw.start();
    fw.updateFunc(undefined, widget('inflight'));
    await inPass;
    fw.updateFunc(undefined, widget('queued-1'));
    expect(finished).toBe(false);
    await fw.stop();
    // The pass that was in flight when stop() began ended (unaborted) before stop() resolved.
    expect(finished).toBe(true);
    expect(sawAbort).toBe(false);
    expect(recorder.inFlight.get('default/inflight')).toBe(0);
    fw.updateFunc(undefined, widget('after-stop'));
    await sleep(30);
    expect(recorder.count('create', 'after-stop')).toBe(0);
    expect(fw.ready).toBe(false);
  });

  it('aborts in-flight reconciles through their signal once the grace period is over', async () => {
    const recorder = new RecordingResource();
    let abortedWith: unknown;
    recorder.onCreate = (ctx) =>
      new Promise<void>((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          abortedWith = ctx.signal.reason;
          resolve();
        });
      });
    const fw = dropIn(recorder, { gracefulShutdownMs: 50 });
    await fw.start();
    fw.updateFunc(undefined, widget('stuck'));
    await eventually(() => recorder.count('create') === 1);
    const started = Date.now();
    await fw.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(abortedWith).toBeInstanceOf(Error);
  });
});
