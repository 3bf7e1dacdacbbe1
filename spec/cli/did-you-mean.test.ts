// A misspelt flag or command names the nearest one, in every subcommand; a far-off one gets no guess.
import { describe, expect, it } from 'vitest';
import { parseApiServerArgs } from '../../lib/cli/apiserver-command.js';
import { parseDevArgs } from '../../lib/cli/dev-command.js';
import { runGenerateCommand } from '../../lib/cli/generate-command.js';
import { parseInitArgs, runInitCommand } from '../../lib/cli/init-command.js';
import { main } from '../../lib/cli/main.js';
import { runPlanCommand } from '../../lib/cli/plan-command.js';
import { parseRunSpecArgs } from '../../lib/cli/run-spec-command.js';
import { closest } from '../../lib/cli/suggest.js';

describe('did you mean', () => {
  it('finds a typo within two edits, and nothing for an unrelated word', () => {
    expect(closest('--kubconfig', ['--port', '--kubeconfig'])).toBe('--kubeconfig');
    expect(closest('--prot', ['--port', '--kubeconfig'])).toBe('--port');
    expect(closest('--colour', ['--color', '--no-color'])).toBe('--color');
    expect(closest('--zzzzzz', ['--port', '--kubeconfig'])).toBeUndefined();
    expect(closest('x', ['y'])).toBeUndefined();
  });

  it('is in the usage error of apiserver, dev, init and run-spec', () => {
    expect(() => parseApiServerArgs(['--prot', '1'], {})).toThrow(
      'unknown flag "--prot" (did you mean --port?)',
    );
    expect(() => parseDevArgs(['x.js', '--crd', 'a.yaml'])).toThrow(
      'unknown flag "--crd" (did you mean --crds?)',
    );
    expect(() => parseInitArgs(['x', '--knid', 'Foo'])).toThrow(
      'unknown flag "--knid" (did you mean --kind?)',
    );
    expect(() => parseRunSpecArgs(['a.yaml', '--kubconfig', 'k'])).toThrow(
      'unknown flag "--kubconfig" (did you mean --kubeconfig?)',
    );
    expect(() => parseInitArgs(['x', '--colour', 'red'])).toThrow(/^unknown flag "--colour"$/);
  });

  it('is in plan (exit 1, usage) and for an unknown command (exit 2)', async () => {
    const err: string[] = [];
    const io = { stdout: () => undefined, stderr: (t: string) => err.push(t) };
    expect(await runPlanCommand(['x.js', '--ouptut', 'json'], io)).toBe(1);
    expect(err.join('')).toContain('unknown option "--ouptut" (did you mean --output?)');
    const write = process.stderr.write.bind(process.stderr);
    let said = '';
    process.stderr.write = (t: string) => {
      said += t;
      return true;
    };
    try {
      expect(await main(['palnn'])).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    expect(said).toContain('unknown command "palnn" (did you mean plan?)');
  });
});

describe('exit codes', () => {
  function io(): { out: string[]; stdout: (t: string) => void; stderr: (t: string) => void } {
    const out: string[] = [];
    return { out, stdout: (t) => out.push(t), stderr: (t) => out.push(t) };
  }

  it('a usage error exits 2 in generate as in the other commands, with the nearest option or target', async () => {
    const o = io();
    expect(await runGenerateCommand(['rbac', 'x.js', '--chek'], o)).toBe(2);
    expect(o.out.join('')).toContain('unknown option "--chek" (did you mean --check?)');
    const t = io();
    expect(await runGenerateCommand(['crds', 'x.js'], t)).toBe(2);
    expect(t.out.join('')).toContain('unknown target "crds" (did you mean crd?)');
    const i = io();
    expect(runInitCommand(['x', '--knid', 'Foo'], i)).toBe(2);
    const write = process.stderr.write.bind(process.stderr);
    let said = '';
    process.stderr.write = (text: string) => {
      said += text;
      return true;
    };
    try {
      expect(await main(['genrate'])).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    expect(said).toContain('unknown command "genrate" (did you mean generate?)');
  });
});
