import { afterEach, describe, expect, it, vi } from 'vitest';
import { isInvalidConfig } from '../../lib/errors/invalid-config-error.js';
import {
  backOffAbortable,
  backOffDelay,
  DEFAULT_BACKOFF_ATTEMPTS,
  defaultBackOffFactory,
} from '../../lib/util/backoff.js';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('defaultBackOffFactory', () => {
  it('gives 500 ms × 1.5 with full jitter, capped at 60 s, 8 attempts', () => {
    expect(defaultBackOffFactory()).toEqual({
      startingDelay: 500,
      timeMultiple: 1.5,
      maxDelay: 60_000,
      numOfAttempts: 8,
      jitter: 'full',
      delayFirstAttempt: false,
    });
  });

  it('returns fresh options each call', () => {
    expect(defaultBackOffFactory()).not.toBe(defaultBackOffFactory());
  });

  it('nominal delays grow 0.5, 0.75, 1.125 … s and sum to about 16 s over 7 retries', () => {
    const options = defaultBackOffFactory();
    expect([1, 2, 3].map((n) => backOffDelay(options, n))).toEqual([500, 750, 1125]);
    const total = Array.from({ length: DEFAULT_BACKOFF_ATTEMPTS - 1 }, (_, i) =>
      backOffDelay(options, i + 1),
    ).reduce((a, b) => a + b);
    expect(total).toBeGreaterThan(15_000);
    expect(total).toBeLessThan(17_000);
  });

  it('caps a delay at maxDelay', () => {
    expect(backOffDelay(defaultBackOffFactory(), 30)).toBe(60_000);
  });
});

describe('backOffAbortable', () => {
  it('returns the first success and passes the attempt number', async () => {
    const attempts: number[] = [];
    const result = await backOffAbortable(
      async (attempt) => {
        attempts.push(attempt);
        if (attempt < 3) throw new Error(`fail ${attempt}`);
        return 'ok';
      },
      { startingDelay: 1, jitter: 'none', numOfAttempts: 5 },
    );
    expect(result).toBe('ok');
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('makes exactly numOfAttempts calls, then throws the last error', async () => {
    let calls = 0;
    await expect(
      backOffAbortable(
        async () => {
          calls += 1;
          throw new Error(`fail ${calls}`);
        },
        { startingDelay: 1, jitter: 'none', numOfAttempts: 4 },
      ),
    ).rejects.toThrow('fail 4');
    expect(calls).toBe(4);
  });

  it('with the default options makes 8 attempts over about 16 s of (fake) time', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(1);
    let calls = 0;
    const outcome = backOffAbortable(async () => {
      calls += 1;
      throw new Error('down');
    }).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(calls).toBeLessThan(8);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(calls).toBe(8);
    expect(await outcome).toMatchObject({ message: 'down' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('asks the retry predicate and stops when it says no', async () => {
    let calls = 0;
    const retry = vi.fn(() => false);
    await expect(
      backOffAbortable(
        async () => {
          calls += 1;
          throw new Error('permanent');
        },
        { startingDelay: 1, numOfAttempts: 5, retry },
      ),
    ).rejects.toThrow('permanent');
    expect(calls).toBe(1);
    expect(retry).toHaveBeenCalledWith(expect.objectContaining({ message: 'permanent' }), 1);
  });

  it('delays the first attempt when asked', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const pending = backOffAbortable(
      async () => {
        calls += 1;
        return calls;
      },
      { startingDelay: 200, delayFirstAttempt: true },
    );
    await vi.advanceTimersByTimeAsync(199);
    expect(calls).toBe(0);
    await vi.advanceTimersByTimeAsync(2);
    await expect(pending).resolves.toBe(1);
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('early'));
    const request = vi.fn(() => Promise.resolve(1));
    await expect(backOffAbortable(request, {}, controller.signal)).rejects.toThrow('early');
    expect(request).not.toHaveBeenCalled();
  });

  it('an abort during a delay rejects at once with the reason and leaves no timer', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    let calls = 0;
    const outcome = backOffAbortable(
      async () => {
        calls += 1;
        throw new Error('down');
      },
      defaultBackOffFactory(),
      controller.signal,
    ).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(1);
    controller.abort(new Error('stopped'));
    expect(await outcome).toMatchObject({ message: 'stopped' });
    expect(vi.getTimerCount()).toBe(0);
    expect(calls).toBe(1);
  });

  it('an abort during an attempt stops retrying and throws the attempt error', async () => {
    const controller = new AbortController();
    let calls = 0;
    await expect(
      backOffAbortable(
        async () => {
          calls += 1;
          controller.abort();
          throw new Error('interrupted');
        },
        { startingDelay: 1, numOfAttempts: 5 },
        controller.signal,
      ),
    ).rejects.toThrow('interrupted');
    expect(calls).toBe(1);
  });

  it.each([0, -1, 1.5])('rejects numOfAttempts %s with InvalidConfigError', async (n) => {
    const err: unknown = await backOffAbortable(() => Promise.resolve(1), { numOfAttempts: n }).catch(
      (e: unknown) => e,
    );
    expect(isInvalidConfig(err)).toBe(true);
    expect((err as Error).message).toBe(`backoff numOfAttempts must be an integer >= 1; got ${n}`);
  });
});
