import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RATE_LIMIT_BASE_DELAY_MS,
  DEFAULT_RATE_LIMIT_MAX_DELAY_MS,
  ExponentialRateLimiter,
} from '../../lib/queue/rate-limiter.js';

describe('ExponentialRateLimiter', () => {
  it('doubles from 5 ms per failure by default', () => {
    const rl = new ExponentialRateLimiter();
    const delays = Array.from({ length: 5 }, () => rl.when('a'));
    expect(delays).toEqual([5, 10, 20, 40, 80].map((d) => (d / 5) * DEFAULT_RATE_LIMIT_BASE_DELAY_MS));
    expect(rl.numRequeues('a')).toBe(5);
  });

  it('caps at the maximum delay, also for huge failure counts', () => {
    const rl = new ExponentialRateLimiter();
    let last = 0;
    for (let i = 0; i < 2000; i++) last = rl.when('a');
    expect(last).toBe(DEFAULT_RATE_LIMIT_MAX_DELAY_MS);
  });

  it('forget resets the backoff of that key only', () => {
    const rl = new ExponentialRateLimiter({ baseDelayMs: 10, factor: 3, maxDelayMs: 1000 });
    rl.when('a');
    rl.when('a');
    rl.when('b');
    rl.forget('a');
    expect(rl.numRequeues('a')).toBe(0);
    expect(rl.when('a')).toBe(10);
    expect(rl.when('b')).toBe(30);
  });

  it('rejects nonsensical settings', () => {
    expect(() => new ExponentialRateLimiter({ factor: 0.5 })).toThrow(RangeError);
    expect(() => new ExponentialRateLimiter({ baseDelayMs: 10, maxDelayMs: 5 })).toThrow(RangeError);
  });
});
