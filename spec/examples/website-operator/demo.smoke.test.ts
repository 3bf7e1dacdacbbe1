// `make demo` in short: the built demo runs end to end (non-TTY output) and reports what it did.
// `make test` builds before it runs the tests; run `make build` first when running this file alone.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const DEMO = 'dist/examples/website-operator/demo.js';

let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'website-demo-'));
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

function runDemo(): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.KUBECONFIG; // the smoke test always uses the embedded API server
  delete env.KEEP;
  const child = spawn(process.execPath, [DEMO, '--work-dir', workDir], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      resolve({ code, output });
    });
  });
}

it('runs the demo: every sample reconciled, the edit applied, the deleted one fully cleaned up, exit 0', async () => {
  expect(existsSync(DEMO), `${DEMO} is missing: run make build first`).toBe(true);
  const started = Date.now();
  const { code, output } = await runDemo();
  expect(code, output).toBe(0);
  expect(output).toContain('started the embedded API server');
  expect(output).toContain(`kubectl --kubeconfig ${join(workDir, 'kubeconfig')}`);
  expect(output).toMatch(/~ hello: Deployment updated \(2 replicas\)/);
  expect(output).toMatch(
    /blog +created ConfigMap, Deployment, Service, page file; cleaned up ConfigMap, Deployment, Service, page file, finalizer/,
  );
  expect(output).toMatch(
    /guide +created ConfigMap, Deployment, Service, page file; Ready \(generation 1, set v2\)/,
  );
  expect(output).toContain('2 of 2 remaining Websites reconciled and Ready; 1 deleted and fully cleaned up');
  expect(Date.now() - started).toBeLessThan(60_000);
  expect((await readdir(join(workDir, 'pages', 'reconcilekit-demo'))).sort()).toEqual([
    'guide.html',
    'hello.html',
  ]);
}, 90_000);
