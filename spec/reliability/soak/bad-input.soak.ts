import { describe, expect, it } from 'vitest';
import { BAD_CASES, runBadInput } from '../scenarios/bad-input.js';
import { recordFigures } from '../support/figures.js';

describe('soak: bad input', () => {
  it('bad objects fail alone for 30 s beside 100 good ones', async () => {
    const figures = await runBadInput({ good: 50, failForMs: 30_000, reconcileTimeoutMs: 2_000 });
    recordFigures('bad-input', figures);
    expect(figures.goodProblems).toEqual([]);
    expect(figures.ready).toBe(true);
    for (const [i, bad] of BAD_CASES.entries()) {
      const result = figures.cases[i]!;
      expect(result.warningReasons, result.name).toContain(bad.reason);
      expect(result.attempts, result.name).toBeGreaterThanOrEqual(3);
      expect(result.attempts, result.name).toBeLessThanOrEqual(25);
    }
    expect(figures.cleanupProblems).toEqual([]);
  });
});
