import { describe, expect, it } from 'vitest';
import { recordFigures } from './support/figures.js';
import { runCrashSafety } from './scenarios/crash-safety.js';

describe('reliability: crash safety (short; `make soak` runs 20 kills)', () => {
  it('after SIGKILLs at random points every deletion was cleaned up, no create is half done, nothing orphaned', async () => {
    const figures = await runCrashSafety({ kills: 4, convergeTimeoutMs: 20_000 });
    recordFigures('crash-safety', figures);
    expect(figures.unexpectedExits).toEqual([]);
    expect(figures.deletes).toBeGreaterThan(0);
    // convergence() includes: live objects' external files complete (no half-done create), no orphaned
    // file or ConfigMap, nothing Terminating, and a completed cleanup for every gone Gadget in the log.
    expect(figures.problems).toEqual([]);
    expect(figures.cleanups).toBeGreaterThan(0);
    expect(figures.finalExitCode).toBe(0);
  }, 60_000);
});
