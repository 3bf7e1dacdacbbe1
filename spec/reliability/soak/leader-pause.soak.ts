import { describe, expect, it } from 'vitest';
import { runLeaderPause } from '../scenarios/leader-pause.js';
import { recordFigures } from '../support/figures.js';

describe('soak: a paused leader resumes fenced', () => {
  it('6 rounds of SIGSTOP past the lease and SIGCONT: 0 writes by the old leader, 0 same-key overlaps', async () => {
    const figures = await runLeaderPause({ rounds: 6, objects: 40, leaseDurationMs: 3000 });
    recordFigures('leader-pause', figures);
    expect(figures.problems).toEqual([]);
    expect(figures.writesAfterResume).toBe(0);
    expect(figures.sameKeyOverlaps).toBe(0);
  });
});
