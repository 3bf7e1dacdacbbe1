import { describe, expect, it } from 'vitest';
import { WatchBackoff } from '../../lib/watch/watch-backoff.js';

describe('WatchBackoff', () => {
  it('grows 800 ms ×2 up to 30 s with no jitter at the midpoint random value', () => {
    const b = new WatchBackoff({}, () => 0.5);
    const delays = Array.from({ length: 8 }, () => b.next());
    expect(delays).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
  });

  it('spreads delays by ±25 % jitter', () => {
    expect(new WatchBackoff({}, () => 0).next()).toBe(600);
    expect(new WatchBackoff({}, () => 0.999999).next()).toBe(1000);
  });

  it('resets only after the watch was healthy for 2 minutes', () => {
    let now = 0;
    const b = new WatchBackoff(
      {},
      () => 0.5,
      () => now,
    );
    b.next();
    b.next();
    b.healthy();
    now += 60_000;
    expect(b.next()).toBe(3200); // healthy for 1 min only: keeps growing
    b.healthy();
    now += 120_000;
    expect(b.next()).toBe(800);
  });
});
