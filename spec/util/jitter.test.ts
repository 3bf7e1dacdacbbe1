import { describe, expect, it } from 'vitest';
import { jitter } from '../../lib/util/jitter.js';

describe('jitter', () => {
  it('spreads by ± the fraction', () => {
    expect(jitter(1000, 0.1, () => 0)).toBeCloseTo(900);
    expect(jitter(1000, 0.1, () => 0.5)).toBeCloseTo(1000);
    expect(jitter(1000, 0.1, () => 1)).toBeCloseTo(1100);
  });

  it('clamps the fraction to [0, 1]', () => {
    expect(jitter(1000, -1, () => 1)).toBe(1000);
    expect(jitter(1000, 5, () => 0)).toBe(0);
  });

  it('stays within bounds with the real random source', () => {
    for (let i = 0; i < 200; i++) {
      const value = jitter(300_000, 0.1);
      expect(value).toBeGreaterThanOrEqual(270_000);
      expect(value).toBeLessThanOrEqual(330_000);
    }
  });
});
