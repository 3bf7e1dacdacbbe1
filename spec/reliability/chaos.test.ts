import { describe, expect, it } from 'vitest';
import { recordFigures } from './support/figures.js';
import { runChaos } from './scenarios/chaos.js';

describe('reliability: chaos (short; `make soak` runs 500 objects)', () => {
  it('converges every object after 10 s of errors, dropped and expired watches, with nothing lost', async () => {
    const figures = await runChaos({ objects: 80, faultMs: 10_000, convergeTimeoutMs: 25_000 });
    recordFigures('chaos', figures);
    // Faults really happened: errors of every kind and watches dropped.
    expect(figures.faults.byKind['500']).toBeGreaterThan(0);
    expect(figures.faults.byKind['503']).toBeGreaterThan(0);
    expect(figures.faults.byKind['429']).toBeGreaterThan(0);
    expect(figures.faults.byKind['409']).toBeGreaterThan(0);
    expect(figures.faults.byKind['watch-dropped']).toBeGreaterThan(0);
    expect(figures.deleted).toBeGreaterThan(0);
    // Outcomes: every live object converged, every deleted one cleaned up, nothing orphaned or Terminating.
    expect(figures.problems).toEqual([]);
    expect(figures.maxConcurrentPerKey).toBe(1);
    expect(figures.unhandledRejections).toBe(0);
    expect(figures.queueDepth).toBe(0);
    expect(figures.activeWorkers).toBe(0);
    // Memory back to a steady level: idle after convergence does not grow, and stays near the baseline.
    expect(figures.heapSettledMiB).toBeLessThan(figures.heapFinalMiB + 5);
    expect(figures.heapFinalMiB).toBeLessThan(figures.heapBaselineMiB + 40);
  }, 60_000);
});
