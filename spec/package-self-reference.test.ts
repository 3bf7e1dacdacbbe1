import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('package', () => {
  it('is importable by its own name from inside the repo (resolves to the build)', async () => {
    const mod: Record<string, unknown> = await import('reconcilekit');
    expect(mod['VERSION']).toBe('0.1.0');
  });

  it('runs the CLI from bin/ and reports unknown commands with exit code 2', () => {
    expect(() => execFileSync('node', ['bin/reconcilekit.js', 'no-such-command'], { stdio: 'pipe' })).toThrow(
      /unknown command/,
    );
  });
});
