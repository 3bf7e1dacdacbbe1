import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ControllerError,
  ErrorHistory,
  MAX_CONTROLLER_ERRORS,
  trimErrorMessage,
} from '../../lib/declarative/controller-error.js';
import { ErrorRateLimiter } from '../../lib/declarative/error-rate-limiter.js';

describe('ErrorRateLimiter', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('passes the first 3 at once, then at most one per 2 s, never waiting', () => {
    const limiter = new ErrorRateLimiter();
    const passed: number[] = [];
    // One failing pass every 100 ms for 5 s.
    for (let t = 0; t <= 5_000; t += 100) {
      if (limiter.allow()) passed.push(t);
      vi.advanceTimersByTime(100);
    }
    expect(passed).toEqual([0, 100, 200, 2_200, 4_200]);
    expect(limiter.dropped).toBe(51 - 5);
  });

  it('burst of errors at one instant: 3 pass, the rest are refused', () => {
    const limiter = new ErrorRateLimiter();
    const results = Array.from({ length: 10 }, () => limiter.allow());
    expect(results.filter(Boolean)).toHaveLength(3);
    vi.advanceTimersByTime(2_000);
    expect(limiter.allow()).toBe(true);
    expect(limiter.allow()).toBe(false);
  });
});

describe('ErrorHistory', () => {
  it('D9: a 300-character message is trimmed to the first 119 + [...] + the last 120', () => {
    const msg = Array.from({ length: 300 }, (_, i) => String.fromCharCode(65 + (i % 26))).join('');
    const trimmed = trimErrorMessage(msg);
    expect(trimmed).toBe(`${msg.slice(0, 119)}[...]${msg.slice(-120)}`);
    expect(trimmed).toHaveLength(244);
    expect(trimErrorMessage('x'.repeat(245))).toHaveLength(245);
    // Code points, not UTF-16 units: no half emoji.
    expect(trimErrorMessage('😀'.repeat(300))).toBe(`${'😀'.repeat(119)}[...]${'😀'.repeat(120)}`);
  });

  it('keeps the last 10 errors, oldest first', () => {
    const h = new ErrorHistory();
    h.push(new ControllerError('op', 'c', 'bad spec', true));
    for (let i = 0; i < 12; i++) h.push(new ControllerError('op', 'c', `e${String(i)}`, false));
    expect(h.size).toBe(MAX_CONTROLLER_ERRORS);
    expect(h.messages()[0]).toBe('e2');
    expect(h.hasCritical).toBe(false);
  });
});
