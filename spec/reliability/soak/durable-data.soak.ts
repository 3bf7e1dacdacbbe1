import { describe, expect, it } from 'vitest';
import { runDurableData } from '../scenarios/durable-data.js';
import { recordFigures } from '../support/figures.js';

describe('soak: durable --data', () => {
  it('25 SIGKILLs under write load: 0 acknowledged writes lost, restart within 1 s', async () => {
    const figures = await runDurableData({ kills: 25, writers: 16, loadMs: [300, 1500] });
    recordFigures('durable-data', figures);
    expect(figures.problems).toEqual([]);
    expect(figures.lostWrites).toBe(0);
    expect(figures.resurrected).toBe(0);
    expect(figures.restartMsMax).toBeLessThan(1000);
    expect(figures.fileModes).toEqual(['600']);
  });
});
