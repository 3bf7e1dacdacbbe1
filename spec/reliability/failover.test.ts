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
    // The Lease must expire first; the standby notices at its next retry (lease / 8 here).
    expect(figures.takeoverMs).toBeLessThanOrEqual(figures.leaseDurationMs * 1.125 + 500);
    expect(figures.callsByStandby).toBeGreaterThan(0);
    expect(figures.overlappingCalls).toBe(0);
    expect(figures.problems).toEqual([]);
  }, 60_000);
});
