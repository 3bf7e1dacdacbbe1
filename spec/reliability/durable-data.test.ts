import { describe, expect, it } from 'vitest';
import { runDurableData } from './scenarios/durable-data.js';
import { recordFigures } from './support/figures.js';

describe('reliability: durable --data (short; `make soak` runs 25 kills)', () => {
  it('SIGKILL under write load loses no acknowledged write; files are 0600', async () => {
    const figures = await runDurableData({ kills: 3, writers: 8, loadMs: [150, 400], minAcksPerRound: 10 });
    recordFigures('durable-data', figures);
    expect(figures.acknowledgedWrites).toBeGreaterThan(20);
    expect(figures.problems).toEqual([]);
    expect(figures.lostWrites).toBe(0);
    expect(figures.resurrected).toBe(0);
    expect(figures.fileModes).toEqual(['600']);
  }, 60_000);
});
