import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import { ExponentialRateLimiter } from '../../lib/queue/rate-limiter.js';
import { WorkQueue } from '../../lib/queue/work-queue.js';

/** Small deterministic PRNG (mulberry32) so a failing seed can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('WorkQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands out a key added several times while waiting only once', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it('does not hand out a key being processed; a change meanwhile gives exactly one more run', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('a');
    const key = await q.get();
    expect(key).toBe('a');
    for (let i = 0; i < 5; i++) q.add('a');
    expect(q.len()).toBe(0);
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await settle();
    expect(second).toBeUndefined();
    q.done('a');
    await settle();
    expect(second).toBe('a');
    q.done('a');
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it('a key not changed during processing is not run again', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('a');
    await q.get();
    q.done('a');
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it('wakes a waiting get when a key arrives', async () => {
    const q = new WorkQueue({ name: 't' });
    const got = q.get();
    q.add('x');
    expect(await got).toBe('x');
    q.shutDown();
  });

  it('addAfter delays the add and keeps the earliest pending time per key', async () => {
    const q = new WorkQueue({ name: 't' });
    q.addAfter('a', 1000);
    q.addAfter('a', 300);
    q.addAfter('a', 5000);
    vi.advanceTimersByTime(299);
    expect(q.len()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(q.len()).toBe(1);
    vi.advanceTimersByTime(10_000);
    expect(q.len()).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    q.shutDown();
  });

  it('addAfter with a non-positive delay adds at once', () => {
    const q = new WorkQueue({ name: 't' });
    q.addAfter('a', 0);
    q.addAfter('b', -5);
    expect(q.len()).toBe(2);
    q.shutDown();
  });

  it('addRateLimited backs off exponentially per key and forget resets it', async () => {
    const q = new WorkQueue({ name: 't', rateLimiter: new ExponentialRateLimiter({ baseDelayMs: 100 }) });
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      q.addRateLimited('a');
      const start = Date.now();
      for (let waited = 0; q.len() === 0 && waited < 10_000; waited++) vi.advanceTimersByTime(1);
      delays.push(Date.now() - start);
      q.done((await q.get())!);
    }
    expect(delays).toEqual([100, 200, 400, 800]);
    expect(q.numRequeues('a')).toBe(4);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    q.addRateLimited('a');
    vi.advanceTimersByTime(99);
    expect(q.len()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(q.len()).toBe(1);
    q.shutDown();
  });

  it('get resolves undefined when its signal aborts and leaves no waiter behind', async () => {
    const q = new WorkQueue({ name: 't' });
    const ac = new AbortController();
    const got = q.get(ac.signal);
    ac.abort();
    expect(await got).toBeUndefined();
    q.add('a');
    expect(q.len()).toBe(1);
    q.shutDown();
  });

  it('shutDown releases waiting workers, ignores adds and drops pending delays', async () => {
    const q = new WorkQueue({ name: 't' });
    const waiting = q.get();
    q.addAfter('later', 1000);
    q.shutDown();
    expect(await waiting).toBeUndefined();
    q.add('a');
    expect(q.len()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(await q.get()).toBeUndefined();
    expect(q.shuttingDown).toBe(true);
  });

  it('shutDownWithDrain hands out queued keys, waits for in-flight work, then resolves', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('a');
    q.add('b');
    const first = await q.get();
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    q.add('c');
    q.add(first!); // changed while processing during shutdown: not run again
    const second = await q.get();
    expect(second).toBe('b');
    expect(await q.get()).toBeUndefined();
    await settle();
    expect(drained).toBe(false);
    q.done(first!);
    await settle();
    expect(drained).toBe(false);
    q.done(second!);
    await drain;
    expect(drained).toBe(true);
    expect(await q.get()).toBeUndefined();
  });

  it('shutDownWithDrain gives up when its signal aborts', async () => {
    const q = new WorkQueue({ name: 't' });
    q.add('a');
    await q.get();
    const ac = new AbortController();
    const drain = q.shutDownWithDrain(ac.signal);
    ac.abort();
    await drain;
    expect(q.processingCount()).toBe(1);
  });

  describe('property: random operations keep the client-go invariants', () => {
    // Model-based: a sequence of random add/get/done/addAfter/time steps, checked after every step.
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) {
      it(`seed ${seed}`, async () => {
        const rand = prng(seed);
        const keys = ['a', 'b', 'c', 'd', 'e'];
        const q = new WorkQueue({ name: 'prop' });
        const processing = new Set<string>();
        const lastAdd = new Map<string, number>(); // step of the latest add (immediate or fired delay)
        const lastGet = new Map<string, number>(); // step at which the key was last handed out
        const pendingDelay = new Map<string, number>(); // key → fire time
        let step = 0;
        const handOut = (key: string | undefined): void => {
          if (key === undefined) return;
          // per-key exclusivity
          expect(processing.has(key)).toBe(false);
          // no spurious run: an add happened since the previous hand-out of this key
          expect(lastAdd.get(key) ?? -1).toBeGreaterThanOrEqual(lastGet.get(key) ?? -1);
          processing.add(key);
          lastGet.set(key, step);
        };
        for (; step < 400; step++) {
          const r = rand();
          const key = keys[Math.floor(rand() * keys.length)]!;
          if (r < 0.35) {
            q.add(key);
            lastAdd.set(key, step);
          } else if (r < 0.45) {
            const delay = 1 + Math.floor(rand() * 50);
            q.addAfter(key, delay);
            const at = Date.now() + delay;
            if (!pendingDelay.has(key) || pendingDelay.get(key)! > at) pendingDelay.set(key, at);
          } else if (r < 0.7) {
            if (q.len() > 0) handOut(await q.get());
          } else if (r < 0.9) {
            const busy = [...processing];
            const k = busy[Math.floor(rand() * busy.length)];
            if (k !== undefined) {
              processing.delete(k);
              q.done(k);
            }
          } else {
            const advance = Math.floor(rand() * 30);
            const now = Date.now() + advance;
            for (const [k, at] of pendingDelay) {
              if (at <= now) {
                pendingDelay.delete(k);
                lastAdd.set(k, step);
              }
            }
            vi.advanceTimersByTime(advance);
          }
          // dedup: the queue never holds more keys than exist, and never a key being processed
          expect(q.len()).toBeLessThanOrEqual(keys.length);
          expect(q.processingCount()).toBe(processing.size);
        }
        // Drain: finish everything, fire every delay, then every key added after its last hand-out runs
        // exactly once more (no lost change) and the queue ends empty.
        vi.advanceTimersByTime(1000);
        for (const [k] of pendingDelay) lastAdd.set(k, step);
        for (const k of [...processing]) {
          processing.delete(k);
          q.done(k);
        }
        step++;
        const owed = keys.filter((k) => (lastAdd.get(k) ?? -1) >= (lastGet.get(k) ?? 0) && lastAdd.has(k));
        const ran: string[] = [];
        while (q.len() > 0) {
          const k = await q.get();
          handOut(k);
          ran.push(k!);
          processing.delete(k!);
          q.done(k!);
        }
        expect(ran.sort()).toEqual(owed.sort());
        q.shutDown();
      });
    }
  });

  it('property: concurrent async workers never process one key twice at once, and every add is served', async () => {
    const rand = prng(42);
    const q = new WorkQueue({ name: 'workers' });
    const active = new Set<string>();
    const served = new Map<string, number>(); // key → time of the last run start
    const added = new Map<string, number>(); // key → time of the last add
    let violations = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const key = await q.get();
        if (key === undefined) return;
        if (active.has(key)) violations++;
        active.add(key);
        served.set(key, Date.now());
        await new Promise((r) => setTimeout(r, Math.floor(rand() * 20)));
        active.delete(key);
        q.done(key);
      }
    };
    const workers = Array.from({ length: 4 }, () => worker());
    for (let t = 0; t < 2000; t++) {
      const key = `k${Math.floor(rand() * 6)}`;
      if (rand() < 0.5) {
        q.add(key);
        added.set(key, Date.now());
      }
      await vi.advanceTimersByTimeAsync(1);
    }
    await vi.advanceTimersByTimeAsync(1000);
    expect(violations).toBe(0);
    for (const [key, at] of added) expect(served.get(key)!).toBeGreaterThanOrEqual(at);
    const drain = q.shutDownWithDrain();
    await vi.advanceTimersByTimeAsync(100);
    await drain;
    await Promise.all(workers);
  });
});

describe('WorkQueue metrics', () => {
  it('exports the workqueue_* family with name/controller labels, pre-initialised', async () => {
    let now = 1_000;
    const registry = new Registry();
    const q = new WorkQueue({ name: 'memcached', registry, now: () => now });
    const text0 = await registry.metrics();
    for (const name of [
      'workqueue_depth',
      'workqueue_adds_total',
      'workqueue_queue_duration_seconds_count',
      'workqueue_work_duration_seconds_count',
      'workqueue_retries_total',
      'workqueue_unfinished_work_seconds',
      'workqueue_longest_running_processor_seconds',
    ]) {
      // The depth is split by priority (controller-runtime's label); every key so far waits at 0.
      const priority = name === 'workqueue_depth' ? ',priority="0"' : '';
      expect(text0).toContain(`${name}{name="memcached",controller="memcached"${priority}} 0`);
    }
    q.add('a');
    q.add('a');
    q.add('b');
    now += 2_000;
    await q.get();
    now += 3_000;
    const json = await registry.getMetricsAsJSON();
    const value = (metric: string): number =>
      json.find((m) => m.name === metric)!.values.find((v) => !('le' in v.labels))!.value;
    expect(value('workqueue_adds_total')).toBe(2);
    expect(value('workqueue_depth')).toBe(1);
    expect(value('workqueue_unfinished_work_seconds')).toBe(3);
    expect(value('workqueue_longest_running_processor_seconds')).toBe(3);
    q.done('a');
    q.addRateLimited('a');
    const text = await registry.metrics();
    expect(text).toContain('workqueue_retries_total{name="memcached",controller="memcached"} 1');
    expect(text).toContain('workqueue_queue_duration_seconds_sum{name="memcached",controller="memcached"} 2');
    expect(text).toContain('workqueue_work_duration_seconds_sum{name="memcached",controller="memcached"} 3');
    q.shutDown();
  });

  it('two queues share one registry without clashing', async () => {
    const registry = new Registry();
    const a = new WorkQueue({ name: 'a', registry });
    const b = new WorkQueue({ name: 'b', controller: 'ctl', registry });
    a.add('x');
    const text = await registry.metrics();
    expect(text).toContain('workqueue_adds_total{name="a",controller="a"} 1');
    expect(text).toContain('workqueue_adds_total{name="b",controller="ctl"} 0');
    a.shutDown();
    b.shutDown();
  });
});
