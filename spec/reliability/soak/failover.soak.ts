import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
} from '../../../lib/engine/defaults.js';
import { runFailover } from '../scenarios/failover.js';
import { recordFigures } from '../support/figures.js';

describe('soak: failover', () => {
  it('SIGTERM of the leader during a 200-object burst, default lease timings', async () => {
    const figures = await runFailover({
      objects: 200,
      leaseDurationMs: DEFAULT_LEASE_DURATION_MS,
      renewDeadlineMs: DEFAULT_RENEW_DEADLINE_MS,
      retryPeriodMs: DEFAULT_RETRY_PERIOD_MS,
      convergeTimeoutMs: 120_000,
    });
    recordFigures('failover', figures);
    expect(figures.leaderExit).toEqual({ code: 0, signal: null });
    expect(figures.leaderAfter).toBe('replica-b');
    expect(figures.takeoverMs).toBeLessThanOrEqual(figures.leaseDurationMs);
    expect(figures.overlappingCalls).toBe(0);
    expect(figures.problems).toEqual([]);
  });
});
