import { describe, expect, it } from 'vitest';
import { runCrashSafety } from '../scenarios/crash-safety.js';
import { recordFigures } from '../support/figures.js';

describe('soak: crash safety', () => {
  it('20 SIGKILLs: every deletion cleaned up, no half-done create, nothing orphaned', async () => {
    const figures = await runCrashSafety({ kills: 20, convergeTimeoutMs: 120_000 });
    recordFigures('crash-safety', figures);
    expect(figures.unexpectedExits).toEqual([]);
    expect(figures.problems).toEqual([]);
    expect(figures.killsMidStep).toBeGreaterThan(0);
    expect(figures.finalExitCode).toBe(0);
  });
});
