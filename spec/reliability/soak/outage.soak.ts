import { describe, expect, it } from 'vitest';
import { runOutage } from '../scenarios/outage.js';
import { recordFigures } from '../support/figures.js';

describe('soak: API server outage', () => {
  it('30 s away, back with the same dataFile: resumes without a restart and converges', async () => {
    const figures = await runOutage({ objects: 100, outageMs: 30_000, convergeTimeoutMs: 60_000 });
    recordFigures('outage', figures);
    expect(figures.problems).toEqual([]);
    expect(figures.reportedNotReady).toBe(true);
    // After 30 s of failures a watcher's next retry can be up to the backoff cap away (30 s + 25 % jitter).
    expect(figures.readyAgainMs).toBeLessThan(40_000);
    expect(figures.unhandledRejections).toBe(0);
    expect(figures.watchRestartsDuringOutage).toBeGreaterThan(0);
    expect(figures.watchRestartsDuringOutage).toBeLessThanOrEqual(figures.watchers * 10);
  });
});
