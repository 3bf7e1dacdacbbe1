import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkQueue } from '../../lib/queue/work-queue.js';

const INTERVAL = 100;

/** A queue with the interval, and the key `a` handed out at fake time 0. */
async function runningAtZero(): Promise<WorkQueue> {
  const q = new WorkQueue({ name: 't', minIntervalMs: INTERVAL });
  q.add('a');
  expect(await q.get()).toBe('a');
  return q;
}

describe('WorkQueue minIntervalMs', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a lone add at once', () => {
    const q = new WorkQueue({ name: 't', minIntervalMs: INTERVAL });
    q.add('a');
    expect(q.len()).toBe(1);
    expect(q.tryGet()).toBe('a');
    q.shutDown();
  });

  it('runs a key added during processing at its previous start + the interval, once for many adds', async () => {
    const q = await runningAtZero();
    vi.advanceTimersByTime(30);
    for (let i = 0; i < 50; i++) q.add('a');
    vi.advanceTimersByTime(10);
    q.done('a');
    expect(q.len()).toBe(0);
    for (let i = 0; i < 50; i++) q.add('a');
    vi.advanceTimersByTime(INTERVAL - 40 - 1);
    expect(q.len()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(q.len()).toBe(1);
    expect(q.tryGet()).toBe('a');
    // Never two runs of one key: while it runs again, adds only mark it dirty.
    q.add('a');
    expect(q.len()).toBe(0);
    expect(q.tryGet()).toBeUndefined();
    vi.advanceTimersByTime(5 * INTERVAL);
    expect(q.len()).toBe(0);
    q.done('a');
    // Its second run started at 100, so the third may start at 200 — already past (now 600): at once.
    expect(q.len()).toBe(1);
    expect(q.tryGet()).toBe('a');
    expect(q.tryGet()).toBeUndefined();
    q.done('a');
    q.shutDown();
  });

  it('makes a key added right after its run wait, and an idle one run at once', async () => {
    const q = await runningAtZero();
    vi.advanceTimersByTime(20);
    q.done('a');
    vi.advanceTimersByTime(30);
    q.add('a');
    q.add('b');
    expect(q.tryGet()).toBe('b');
    expect(q.tryGet()).toBeUndefined();
    vi.advanceTimersByTime(49);
    expect(q.len()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(q.tryGet()).toBe('a');
    vi.advanceTimersByTime(250);
    q.done('a');
    q.done('b');
    q.add('a');
    expect(q.tryGet()).toBe('a');
    q.shutDown();
  });

  it('re-queues a run that outlasted the interval at once on done', async () => {
    const q = await runningAtZero();
    q.add('a');
    vi.advanceTimersByTime(INTERVAL + 20);
    q.done('a');
    expect(q.len()).toBe(1);
    q.shutDown();
  });

  it('is disabled by 0: a key added during processing is queued on done at once', async () => {
    const q = new WorkQueue({ name: 't', minIntervalMs: 0 });
    q.add('a');
    expect(await q.get()).toBe('a');
    q.add('a');
    q.done('a');
    expect(q.len()).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    q.shutDown();
  });

  it('keeps the own delays of addAfter and addRateLimited, and a due delayed add ends the wait', async () => {
    const q = await runningAtZero();
    vi.advanceTimersByTime(2);
    q.done('a');
    q.addAfter('a', 5);
    vi.advanceTimersByTime(5);
    expect(q.tryGet()).toBe('a');
    q.add('a');
    vi.advanceTimersByTime(1);
    q.done('a'); // started at 7: the dirty key waits until 107
    q.addRateLimited('a'); // first backoff: 5 ms
    vi.advanceTimersByTime(4);
    expect(q.len()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(q.len()).toBe(1);
    expect(q.tryGet()).toBe('a');
    q.done('a');
    vi.advanceTimersByTime(INTERVAL);
    // The cancelled interval timer queued nothing more.
    expect(q.len()).toBe(0);
    q.shutDown();
  });

  it('clears the interval timer on shutDown and does not wait for it on drain', async () => {
    const q = await runningAtZero();
    q.add('a');
    q.done('a');
    expect(vi.getTimerCount()).toBe(1);
    q.shutDown();
    expect(vi.getTimerCount()).toBe(0);
    expect(await q.get()).toBeUndefined();

    const d = await runningAtZero();
    d.add('a');
    d.done('a');
    d.add('b');
    let drained = false;
    const drain = d.shutDownWithDrain().then(() => (drained = true));
    expect(vi.getTimerCount()).toBe(0);
    expect(d.tryGet()).toBe('b');
    d.done('b');
    await drain;
    expect(drained).toBe(true);
    expect(d.tryGet()).toBeUndefined();
  });
});
