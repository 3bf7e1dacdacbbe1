import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidConfigError } from '../../lib/errors/invalid-config-error.js';
import { DEFAULT_AGING_EVERY, DEFAULT_PRIORITY, LOW_PRIORITY } from '../../lib/queue/priority.js';
import { WorkQueue } from '../../lib/queue/work-queue.js';

/** Hands out every queued key (each done at once), in order. */
function drain(q: WorkQueue): string[] {
  const out: string[] = [];
  for (let key = q.tryGet(); key !== undefined; key = q.tryGet()) {
    out.push(key);
    q.done(key);
  }
  return out;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('WorkQueue priorities', () => {
  it('hands out higher priorities first, FIFO within one, with every 4th hand-out the longest-queued key', () => {
    const q = new WorkQueue({ name: 'p' });
    for (const key of ['l1', 'l2', 'l3']) q.add(key, LOW_PRIORITY);
    for (const key of ['h1', 'h2', 'h3', 'h4', 'h5']) q.add(key);
    // Turns 1–3 by priority, turn 4 the longest-queued (l1), then priority again.
    expect(drain(q)).toEqual(['h1', 'h2', 'h3', 'l1', 'h4', 'h5', 'l2', 'l3']);
  });

  it('with one priority it is exactly FIFO', () => {
    const q = new WorkQueue({ name: 'one' });
    const keys = Array.from({ length: 50 }, (_, i) => `k${i}`);
    for (const key of keys) q.add(key, LOW_PRIORITY);
    expect(drain(q)).toEqual(keys);
  });

  it("order: 'fifo' ignores priorities", () => {
    const q = new WorkQueue({ name: 'f', order: 'fifo' });
    q.add('low', LOW_PRIORITY);
    q.add('high', 10);
    q.add('mid');
    expect(q.order).toBe('fifo');
    expect(drain(q)).toEqual(['low', 'high', 'mid']);
  });

  it('coalesces: a key added twice runs once, at the higher priority, and never at a lower one', () => {
    const q = new WorkQueue({ name: 'c' });
    q.add('a', LOW_PRIORITY);
    q.add('b', LOW_PRIORITY);
    q.add('c', LOW_PRIORITY);
    q.add('c'); // raised: joins the end of priority 0
    q.add('b', LOW_PRIORITY - 5); // lower: ignored
    expect(q.priorityOf('c')).toBe(DEFAULT_PRIORITY);
    expect(q.priorityOf('b')).toBe(LOW_PRIORITY);
    expect(q.len()).toBe(3);
    expect(q.depthByPriority()).toEqual([
      { priority: DEFAULT_PRIORITY, depth: 1 },
      { priority: LOW_PRIORITY, depth: 2 },
    ]);
    expect(drain(q)).toEqual(['c', 'a', 'b']);
    expect(q.depthByPriority()).toEqual([]);
  });

  it('keeps per-key exclusivity: a key added while it runs waits for done, then runs once at the highest priority added', () => {
    const q = new WorkQueue({ name: 'x' });
    q.add('a', LOW_PRIORITY);
    expect(q.tryGet()).toBe('a');
    q.add('b', LOW_PRIORITY);
    q.add('a', LOW_PRIORITY);
    q.add('a', 5);
    q.add('a');
    expect(q.priorityOf('a')).toBe(5);
    expect(q.tryGet()).toBe('b');
    expect(q.tryGet()).toBeUndefined();
    q.done('b');
    q.add('c', 1);
    q.done('a');
    expect(q.tryGet()).toBe('a');
    expect(q.tryGet()).toBe('c');
  });

  it('gives delayed adds low priority from lowPriorityAfterMs on (a long backoff, a periodic requeue)', () => {
    vi.useFakeTimers();
    const q = new WorkQueue({ name: 'd', now: () => Date.now() });
    q.addAfter('short', 50);
    q.addAfter('long', 1_000);
    q.addAfter('explicit', 5_000, 7);
    vi.advanceTimersByTime(5_000);
    expect(q.priorityOf('short')).toBe(DEFAULT_PRIORITY);
    expect(q.priorityOf('long')).toBe(LOW_PRIORITY);
    expect(q.priorityOf('explicit')).toBe(7);
    // A pending delayed add that an earlier one covers still lends it its priority.
    q.addAfter('merged', 2_000);
    q.addAfter('merged', 3_000, 3);
    vi.advanceTimersByTime(2_000);
    expect(q.priorityOf('merged')).toBe(3);
  });

  it('gives a rate-limited retry low priority once its backoff reaches lowPriorityAfterMs', () => {
    vi.useFakeTimers();
    const delays = [5, 2_000];
    const q = new WorkQueue({
      name: 'r',
      now: () => Date.now(),
      rateLimiter: { when: () => delays.shift() ?? 0, forget: () => undefined, numRequeues: () => 0 },
    });
    q.addRateLimited('k');
    vi.advanceTimersByTime(5);
    expect(q.priorityOf('k')).toBe(DEFAULT_PRIORITY);
    expect(q.tryGet()).toBe('k');
    q.done('k');
    q.addRateLimited('k');
    vi.advanceTimersByTime(2_000);
    expect(q.priorityOf('k')).toBe(LOW_PRIORITY);
  });

  it('refuses bad options and priorities with a typed error', () => {
    expect(() => new WorkQueue({ name: 'b', order: 'lifo' as 'fifo' })).toThrow(InvalidConfigError);
    expect(() => new WorkQueue({ name: 'b', agingEvery: 1 })).toThrow(/agingEvery must be an integer ≥ 2/);
    expect(() => new WorkQueue({ name: 'b', lowPriorityAfterMs: -1 })).toThrow(InvalidConfigError);
    const q = new WorkQueue({ name: 'b' });
    expect(() => {
      q.add('k', Number.NaN);
    }).toThrow(/priority must be an integer/);
    expect(() => {
      q.add('k', 1.5);
    }).toThrow(InvalidConfigError);
  });

  it('splits workqueue_depth by priority (controller-runtime’s label); the FIFO keeps priority=""', async () => {
    const registry = new Registry();
    const q = new WorkQueue({ name: 'm', registry });
    const fifo = new WorkQueue({ name: 'plain', registry, order: 'fifo' });
    q.add('a', LOW_PRIORITY);
    q.add('b', LOW_PRIORITY);
    q.add('c');
    q.add('b'); // raised
    fifo.add('x', LOW_PRIORITY);
    const text = await registry.metrics();
    expect(text).toContain('workqueue_depth{name="m",controller="m",priority="0"} 2');
    expect(text).toContain('workqueue_depth{name="m",controller="m",priority="-100"} 1');
    expect(text).toContain('workqueue_depth{name="plain",controller="plain",priority=""} 1');
    drain(q);
    const after = await registry.metrics();
    expect(after).toContain('workqueue_depth{name="m",controller="m",priority="0"} 0');
    expect(after).toContain('workqueue_depth{name="m",controller="m",priority="-100"} 0');
    // A replacement queue under the same labels starts at 0 for every priority.
    q.add('z', LOW_PRIORITY);
    q.shutDown();
    const second = new WorkQueue({ name: 'm', registry });
    expect(await registry.metrics()).toContain('workqueue_depth{name="m",controller="m",priority="-100"} 0');
    second.shutDown();
    fifo.shutDown();
  });
});

describe('WorkQueue aging: no starvation', () => {
  /**
   * A continuous stream of high-priority adds (more than the queue hands out) while 1,000 low-priority
   * keys wait, as an initial list does: every low key is handed out within (k + 1) × agingEvery hand-outs
   * of entering the queue behind k others, and the whole list within (n + 1) × agingEvery.
   */
  it.each([DEFAULT_AGING_EVERY, 2, 10])(
    'agingEvery %i: the low-priority list completes within its bound under a saturating high stream',
    (agingEvery) => {
      const q = new WorkQueue({ name: 's', agingEvery });
      const n = 1_000;
      const enteredBehind = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        enteredBehind.set(`low-${i}`, q.len());
        q.add(`low-${i}`, LOW_PRIORITY);
      }
      let handOuts = 0;
      let high = 0;
      let highRuns = 0;
      const late: string[] = [];
      let lastLowAt = 0;
      while (enteredBehind.size > 0) {
        // Two new high-priority keys per hand-out: the high backlog only grows.
        q.add(`high-${high++}`, 10);
        q.add(`high-${high++}`, 10);
        const key = q.tryGet();
        if (key === undefined) throw new Error('nothing handed out');
        handOuts += 1;
        if (key.startsWith('low-')) {
          const k = enteredBehind.get(key) ?? 0;
          enteredBehind.delete(key);
          if (handOuts > (k + 1) * agingEvery) late.push(`${key} at ${handOuts}`);
          lastLowAt = handOuts;
        } else highRuns += 1;
        q.done(key);
        if (handOuts > (n + 1) * agingEvery) throw new Error(`low keys starved: ${enteredBehind.size} left`);
      }
      expect(late).toEqual([]);
      expect(lastLowAt).toBeLessThanOrEqual((n + 1) * agingEvery);
      // High-priority work still got the rest of the hand-outs.
      expect(highRuns).toBeGreaterThanOrEqual(lastLowAt - n);
      expect(highRuns).toBeGreaterThan(0);
      q.shutDown();
    },
  );

  it('a high-priority key behind a 50,000-key low backlog is handed out within 1 + (hand-outs to the next non-aging turn)', () => {
    const q = new WorkQueue({ name: 'jump' });
    for (let i = 0; i < 50_000; i++) q.add(`low-${i}`, LOW_PRIORITY);
    for (let i = 0; i < 1_001; i++) q.done(q.tryGet()!); // mid-list
    q.add('user-change');
    const order: string[] = [];
    for (let i = 0; i < DEFAULT_AGING_EVERY; i++) {
      const key = q.tryGet()!;
      order.push(key);
      q.done(key);
    }
    expect(order.indexOf('user-change')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('user-change')).toBeLessThan(2);
    q.shutDown();
  });

  it('model: random adds at random priorities keep exclusivity and lose no change, and every key waits within its bound', () => {
    for (let seed = 1; seed <= 8; seed++) {
      let state = seed;
      const rand = (n: number): number => {
        state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
        return state % n;
      };
      const agingEvery = 2 + rand(4);
      const q = new WorkQueue({ name: `m${seed}`, agingEvery });
      const processing = new Set<string>();
      const addedSinceRun = new Set<string>();
      const bound = new Map<string, number>();
      let handOuts = 0;
      for (let step = 0; step < 3_000; step++) {
        const op = rand(10);
        if (op < 6) {
          const key = `k${rand(40)}`;
          const queuedBefore = q.len();
          const wasWaiting = q.priorityOf(key) !== undefined;
          q.add(key, [LOW_PRIORITY, 0, 10][rand(3)]);
          addedSinceRun.add(key);
          if (!wasWaiting && !processing.has(key)) bound.set(key, handOuts + (queuedBefore + 1) * agingEvery);
        } else if (op < 8) {
          const key = q.tryGet();
          if (key !== undefined) {
            handOuts += 1;
            expect(processing.has(key)).toBe(false);
            const limit = bound.get(key);
            if (limit !== undefined) expect(handOuts).toBeLessThanOrEqual(limit);
            bound.delete(key);
            processing.add(key);
            addedSinceRun.delete(key);
          }
        } else if (processing.size > 0) {
          const key = [...processing][rand(processing.size)]!;
          processing.delete(key);
          const queuedBefore = q.len();
          q.done(key);
          if (addedSinceRun.has(key)) bound.set(key, handOuts + (queuedBefore + 1) * agingEvery);
        }
      }
      for (const key of processing) q.done(key);
      const rest = new Set(drain(q));
      for (const key of addedSinceRun) expect(rest.has(key)).toBe(true);
      q.shutDown();
    }
  });
});

describe('WorkQueue aging: the bound as a property', () => {
  /** Small deterministic PRNG (mulberry32) so a failing seed can be replayed. */
  function prng(seed: number): (n: number) => number {
    let a = seed >>> 0;
    return (n) => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
    };
  }

  async function settle(): Promise<void> {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  }

  /**
   * Random adds at random priorities (raising waiting keys, re-adding running ones), delayed and
   * rate-limited adds firing as time passes, and 1–4 workers taking keys with tryGet or waiting in get.
   * Seen from outside only: a key has entered the queue when it waits (it has a priority) and no worker
   * holds it; then at most len() − 1 keys are ahead of it (exactly len() − 1 when it entered alone), so it
   * must be handed out within len() × agingEvery hand-outs. Also checked: no key is handed out while a
   * worker holds it, and every key added after its last hand-out is handed out again.
   */
  it.each(Array.from({ length: 12 }, (_, i) => i + 1))('seed %i', async (seed) => {
    vi.useFakeTimers({ now: 0 });
    const rand = prng(seed);
    const agingEvery = 2 + rand(5);
    const delays = [0, 1, 3, 8, 1_000, 2_500];
    const q = new WorkQueue({
      name: `prop${seed}`,
      agingEvery,
      rateLimiter: {
        when: () => delays[rand(delays.length)]!,
        forget: () => undefined,
        numRequeues: () => 0,
      },
    });
    const keys = Array.from({ length: 30 }, (_, i) => `k${i}`);
    const workers: ({ state: 'idle' } | { state: 'waiting' } | { state: 'busy'; key: string })[] = Array.from(
      { length: 1 + rand(4) },
      () => ({ state: 'idle' }),
    );
    const held = new Set<string>();
    const deadline = new Map<string, number>();
    const addedSinceRun = new Set<string>();
    const late: string[] = [];
    let handOuts = 0;
    let waiterHandOuts: { worker: number; key: string | undefined }[] = [];
    const queuedNow = (): Set<string> =>
      new Set(keys.filter((k) => q.priorityOf(k) !== undefined && !held.has(k)));
    const handOut = (worker: number, key: string): void => {
      handOuts += 1;
      expect(held.has(key)).toBe(false);
      const limit = deadline.get(key);
      if (limit !== undefined && handOuts > limit) late.push(`${key}: hand-out ${handOuts} > ${limit}`);
      deadline.delete(key);
      held.add(key);
      addedSinceRun.delete(key);
      workers[worker] = { state: 'busy', key };
    };
    let before = queuedNow();
    for (let step = 0; step < 2_500; step++) {
      const op = rand(20);
      const key = keys[rand(keys.length)]!;
      const priority = [LOW_PRIORITY, DEFAULT_PRIORITY, 10][rand(3)]!;
      if (op < 7) {
        q.add(key, priority);
        addedSinceRun.add(key);
      } else if (op < 9) {
        q.addAfter(key, delays[rand(delays.length)]!, rand(2) === 0 ? undefined : priority);
        addedSinceRun.add(key);
      } else if (op < 10) {
        q.addRateLimited(key);
        addedSinceRun.add(key);
      } else if (op < 15) {
        const w = rand(workers.length);
        const worker = workers[w]!;
        if (worker.state === 'idle') {
          const got = q.tryGet();
          if (got !== undefined) handOut(w, got);
          else {
            workers[w] = { state: 'waiting' };
            void q.get().then((k) => waiterHandOuts.push({ worker: w, key: k }));
          }
        } else if (worker.state === 'busy') {
          held.delete(worker.key);
          q.done(worker.key);
          workers[w] = { state: 'idle' };
        }
      } else {
        await vi.advanceTimersByTimeAsync(1 + rand(rand(10) === 0 ? 3_000 : 4));
      }
      await settle();
      // A waiting get takes a key only while nothing is queued: those hand-outs came first.
      for (const { worker, key: got } of waiterHandOuts) {
        if (got === undefined) throw new Error('get resolved undefined before shutdown');
        handOut(worker, got);
      }
      waiterHandOuts = [];
      const now = queuedNow();
      for (const k of now) {
        if (!before.has(k)) deadline.set(k, handOuts + q.len() * agingEvery);
      }
      expect(q.len()).toBe(now.size);
      before = now;
    }
    expect(late).toEqual([]);
    // Everything added since its last run is still waiting or due (no lost change).
    for (const k of addedSinceRun) {
      expect(q.priorityOf(k) !== undefined || q.dueAt(k) !== undefined || held.has(k)).toBe(true);
    }
    q.shutDown();
    await settle();
  });
});
