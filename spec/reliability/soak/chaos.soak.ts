import { describe, expect, it } from 'vitest';
import { runChaos } from '../scenarios/chaos.js';
import { recordFigures } from '../support/figures.js';

describe('soak: chaos', () => {
  it('500 objects under 60 s of faults converge with nothing lost', async () => {
    const figures = await runChaos({ objects: 500, faultMs: 60_000, convergeTimeoutMs: 120_000 });
    recordFigures('chaos', figures);
    expect(figures.faults.total).toBeGreaterThan(0);
    expect(figures.problems).toEqual([]);
    expect(figures.maxConcurrentPerKey).toBe(1);
    expect(figures.unhandledRejections).toBe(0);
    expect(figures.queueDepth).toBe(0);
    expect(figures.activeWorkers).toBe(0);
    expect(figures.heapSettledMiB).toBeLessThan(figures.heapFinalMiB + 5);
    expect(figures.heapFinalMiB).toBeLessThan(figures.heapBaselineMiB + 60);
  });
});
