import { afterEach, describe, expect, it, vi } from 'vitest';
import { sleep } from '../../lib/util/sleep.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('sleep', () => {
  it('resolves after the given time and not before', async () => {
    vi.useFakeTimers();
    let done = false;
    const pending = sleep(100).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(99);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(done).toBe(true);
  });

  it('rejects at once with the reason when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(sleep(10_000, controller.signal)).rejects.toThrow('gone');
  });

  it('rejects on abort and clears its timer', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('uses the default AbortError reason when aborted without one', async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('treats a negative time as zero', async () => {
    vi.useFakeTimers();
    const pending = sleep(-5);
    await vi.advanceTimersByTimeAsync(1);
    await expect(pending).resolves.toBeUndefined();
  });
});
