import { beforeAll, describe, expect, it } from 'vitest';
import { BAD_CASES, runBadInput, type BadInputFigures } from './scenarios/bad-input.js';
import { recordFigures } from './support/figures.js';

describe('reliability: bad input fails alone', () => {
  let figures: BadInputFigures;
  const failForMs = 6_000;

  beforeAll(async () => {
    figures = await runBadInput({ good: 10, failForMs, reconcileTimeoutMs: 800 });
    recordFigures('bad-input', figures);
  }, 60_000);

  it('keeps converging every good object and stays ready', () => {
    expect(figures.goodProblems).toEqual([]);
    expect(figures.ready).toBe(true);
  });

  it('gives every bad object a Warning Event with the reason of its failure', () => {
    for (const [i, bad] of BAD_CASES.entries()) {
      const result = figures.cases[i]!;
      expect(result.warningReasons, result.name).toContain(bad.reason);
      expect(result.warningCount, result.name).toBeGreaterThan(1);
    }
  });

  // Bug R3, fixed: the framework writes an error condition (config.errorCondition, default Ready=False).
  it('gives every bad object an error condition (status False)', () => {
    for (const result of figures.cases) expect(result.errorConditions, result.name).not.toEqual([]);
  });

  it('retries bad objects with backoff, not in a tight loop', () => {
    for (const result of figures.cases) {
      expect(result.attempts, result.name).toBeGreaterThanOrEqual(3);
      // 5 ms doubling gives ~11 passes in 6 s; a loop without backoff would make hundreds.
      expect(result.attempts, result.name).toBeLessThanOrEqual(20);
    }
  });

  it('aborts a hanging reconcile through its signal after reconcileTimeoutMs', () => {
    const hang = figures.cases.find((c) => c.name === 'bad-hang')!;
    expect(hang.abortedBySignal).toBeGreaterThanOrEqual(2);
  });

  it('still deletes bad objects: cleanup runs, finalizers go, nothing is orphaned', () => {
    expect(figures.cleanupProblems).toEqual([]);
  });
});
