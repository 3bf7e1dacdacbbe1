// -o diff's renderer: unifiedHunks checked against the real `patch` tool (applying the hunks to the old
// text must give the new one) over seeded random edits, and renderDiff's layout and colors on a plan.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderDiff, unifiedHunks } from '../../lib/plan/render-diff.js';
import type { Plan } from '../../lib/plan/plan.js';

const dir = mkdtempSync(join(tmpdir(), 'render-diff-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function applyWithPatch(a: string[], hunks: string[]): string[] {
  const from = join(dir, 'a.txt');
  const out = join(dir, 'out.txt');
  writeFileSync(from, a.length === 0 ? '' : `${a.join('\n')}\n`);
  const patchText = `--- a.txt\n+++ b.txt\n${hunks.join('\n')}\n`;
  execFileSync('patch', ['--quiet', '-o', out, from], { input: patchText });
  const text = readFileSync(out, 'utf8');
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

describe('unifiedHunks', () => {
  it('gives hunks that patch(1) applies to the old text to get the new one (200 random edits)', () => {
    const random = rng(19);
    for (let round = 0; round < 200; round++) {
      const a = Array.from(
        { length: Math.floor(random() * 40) },
        (_, i) => `line ${i} ${Math.floor(random() * 5)}`,
      );
      const b: string[] = [];
      for (const line of a) {
        const r = random();
        if (r < 0.1) continue; // removed
        if (r < 0.2) b.push(`changed ${line}`);
        else b.push(line);
        if (random() < 0.1) b.push(`added ${round}`);
      }
      const hunks = unifiedHunks(a, b);
      if (a.join('\n') === b.join('\n')) {
        expect(hunks).toEqual([]);
        continue;
      }
      expect(applyWithPatch(a, hunks)).toEqual(b);
    }
  });
});

describe('renderDiff', () => {
  const cm = (message: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'g1-greeting', namespace: 'ns', resourceVersion: '7', uid: 'u' },
    data: { message },
  });
  const result: Plan = {
    changes: 2,
    errors: 1,
    objects: [
      {
        name: 'g1',
        namespace: 'ns',
        controller: 'greetings',
        kind: 'Greeting',
        resources: [
          {
            resource: 'ConfigMap ns/g1-greeting',
            path: 'update',
            parts: [{ part: 'update', change: cm('new'), before: cm('old'), after: cm('new') }],
          },
          {
            resource: 'ConfigMap ns/stale',
            path: 'update',
            parts: [{ part: 'delete', change: cm('x'), before: cm('x') }],
          },
        ],
      },
      { name: 'g2', namespace: 'ns', resources: [], error: 'getDesiredState: boom' },
      { name: 'g3', namespace: 'ns', resources: [] },
    ],
  };

  it('shows each changed object as YAML before/after, server-owned metadata left out, and notes errors', () => {
    const text = renderDiff(result);
    expect(text).toBe(
      [
        '# ns/g1 (Greeting, controller greetings)',
        '--- ConfigMap ns/g1-greeting (current)',
        '+++ ConfigMap ns/g1-greeting (planned update)',
        '@@ -1,6 +1,6 @@',
        ' apiVersion: v1',
        ' data:',
        '-  message: old',
        '+  message: new',
        ' kind: ConfigMap',
        ' metadata:',
        '   name: g1-greeting',
        '--- ConfigMap ns/stale (current)',
        '+++ /dev/null',
        '@@ -1,7 +0,0 @@',
        '-apiVersion: v1',
        '-data:',
        '-  message: x',
        '-kind: ConfigMap',
        '-metadata:',
        '-  name: g1-greeting',
        '-  namespace: ns',
        '',
        '# ns/g2',
        '# error: getDesiredState: boom',
        '',
        'Plan: 2 change(s) over 3 object(s), 1 with errors.',
        '',
      ].join('\n'),
    );
  });

  it('colors removals red, additions green and hunk headers cyan only when asked', () => {
    const colored = renderDiff(result, { color: true });
    expect(colored).toContain('\u001b[31m-  message: old\u001b[0m');
    expect(colored).toContain('\u001b[32m+  message: new\u001b[0m');
    expect(colored).toContain('\u001b[36m@@ -1,6 +1,6 @@\u001b[0m');
    expect(renderDiff(result)).not.toContain('\u001b[');
  });
});
