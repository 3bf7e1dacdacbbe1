import { beforeAll, describe, expect, it } from 'vitest';
import { runOutage, type OutageFigures } from './scenarios/outage.js';
import { recordFigures } from './support/figures.js';

describe('reliability: API server outage (short; `make soak` keeps it away 30 s)', () => {
  let figures: OutageFigures;

  beforeAll(async () => {
    figures = await runOutage({ objects: 20, outageMs: 4_000, convergeTimeoutMs: 20_000 });
    recordFigures('outage', figures);
  }, 60_000);

  it('resumes without a restart and converges every change made after the server returned', () => {
    expect(figures.problems).toEqual([]);
    // Short outage: the watches' next retries are a few seconds apart at most.
    expect(figures.readyAgainMs).toBeLessThan(10_000);
    expect(figures.unhandledRejections).toBe(0);
  });

  it('keeps retrying during the outage with capped backoff, not in a tight loop', () => {
    expect(figures.watchRestartsDuringOutage).toBeGreaterThan(0);
    // 800 ms doubling: about 3 attempts per watcher in 4 s; without backoff there would be thousands.
    expect(figures.watchRestartsDuringOutage).toBeLessThanOrEqual(figures.watchers * 6);
  });

  // Was bug R4 (fixed in 572856f): `ready` only reflected the first sync.
  it('reports not-ready while the API server is away', () => {
    expect(figures.reportedNotReady).toBe(true);
  });
});
