import { describe, expect, it } from 'vitest';
import { runLeaderPause } from './scenarios/leader-pause.js';
import { recordFigures } from './support/figures.js';

describe('reliability: a paused leader resumes fenced (short; `make soak` runs 6 rounds)', () => {
  it('SIGSTOP longer than the lease, then SIGCONT: no write by the old leader, no same-key overlap', async () => {
    const figures = await runLeaderPause({ rounds: 1, objects: 10, leaseDurationMs: 1000 });
    recordFigures('leader-pause', figures);
    expect(figures.rounds).toBe(1);
    expect(figures.problems).toEqual([]);
    expect(figures.writesAfterResume).toBe(0);
    expect(figures.sameKeyOverlaps).toBe(0);
  }, 60_000);
});
