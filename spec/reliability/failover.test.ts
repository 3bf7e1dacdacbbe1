import { describe, expect, it } from 'vitest';
import { runFailover } from './scenarios/failover.js';
import { recordFigures } from './support/figures.js';

describe('reliability: graceful shutdown and failover', () => {
  it('SIGTERM of the leader during a burst: it drains and exits 0, the standby takes over within the lease, never both at once', async () => {
    const figures = await runFailover({ objects: 40, leaseDurationMs: 4_000, convergeTimeoutMs: 20_000 });
    recordFigures('failover', figures);
    expect(figures.leaderBefore).toBe('replica-a');
    expect(figures.leaderAfter).toBe('replica-b');
    expect(figures.leaderExit).toEqual({ code: 0, signal: null });
    expect(figures.takeoverMs).toBeLessThanOrEqual(figures.leaseDurationMs);
    expect(figures.firstStandbyCallMs).toBeLessThanOrEqual(figures.leaseDurationMs + 1_000);
    expect(figures.callsByLeader).toBeGreaterThan(0);
    expect(figures.callsByStandby).toBeGreaterThan(0);
    expect(figures.overlappingCalls).toBe(0);
    expect(figures.problems).toEqual([]);
  }, 60_000);

  it('SIGKILL of the leader during a burst: the standby takes over once the Lease expires and converges', async () => {
    const figures = await runFailover({
      objects: 40,
      leaseDurationMs: 3_000,
      convergeTimeoutMs: 20_000,
      signal: 'SIGKILL',
    });
    recordFigures('failover-kill', figures);
    expect(figures.leaderExit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(figures.leaderAfter).toBe('replica-b');
    // Like client-go, the standby times the Lease from when *it* saw the last renewal (no clock skew
    // between replicas), up to one retry period late, and checks once per retry period: the bound is
    // lease + retry × 2.2 (its retries carry 20 % jitter), plus this test's 20 ms polling.
    expect(figures.takeoverMs).toBeLessThanOrEqual(
      figures.leaseDurationMs + 2.2 * figures.retryPeriodMs + 250,
    );
    expect(figures.callsByStandby).toBeGreaterThan(0);
    expect(figures.overlappingCalls).toBe(0);
    expect(figures.problems).toEqual([]);
  }, 60_000);
});
