import { describe, expect, it } from 'vitest';
import { DEFAULT_LEASE_DURATION_MS } from '../../../lib/framework/defaults.js';
import { runFailover } from '../scenarios/failover.js';
import { recordFigures } from '../support/figures.js';

describe('soak: failover after the leader vanishes', () => {
  it('SIGKILL of the leader during a 200-object burst: takeover within the 15 s lease', async () => {
    const figures = await runFailover({
      objects: 200,
      leaseDurationMs: DEFAULT_LEASE_DURATION_MS,
      convergeTimeoutMs: 120_000,
      signal: 'SIGKILL',
    });
    recordFigures('failover-kill', figures);
    expect(figures.leaderAfter).toBe('replica-b');
    expect(figures.takeoverMs).toBeLessThanOrEqual(figures.leaseDurationMs * 1.125 + 1_000);
    expect(figures.overlappingCalls).toBe(0);
    expect(figures.problems).toEqual([]);
  });
});
