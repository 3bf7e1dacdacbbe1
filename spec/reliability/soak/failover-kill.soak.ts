import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
} from '../../../lib/engine/defaults.js';
import { runFailover } from '../scenarios/failover.js';
import { recordFigures } from '../support/figures.js';

describe('soak: failover after the leader vanishes', () => {
  it('SIGKILL of the leader during a 200-object burst: takeover within the 15 s lease', async () => {
    const figures = await runFailover({
      objects: 200,
      leaseDurationMs: DEFAULT_LEASE_DURATION_MS,
      renewDeadlineMs: DEFAULT_RENEW_DEADLINE_MS,
      retryPeriodMs: DEFAULT_RETRY_PERIOD_MS,
      convergeTimeoutMs: 120_000,
      signal: 'SIGKILL',
    });
    recordFigures('failover-kill', figures);
    expect(figures.leaderAfter).toBe('replica-b');
    // Like client-go, the standby times the Lease from when *it* saw the last renewal (no clock skew
    // between replicas), up to one retry period late, and checks once per retry period: the bound is
    // lease + retry × 2.2 (its retries carry 20 % jitter), plus this test's 20 ms polling.
    expect(figures.takeoverMs).toBeLessThanOrEqual(
      figures.leaseDurationMs + 2.2 * figures.retryPeriodMs + 250,
    );
    expect(figures.overlappingCalls).toBe(0);
    expect(figures.problems).toEqual([]);
  });
});
