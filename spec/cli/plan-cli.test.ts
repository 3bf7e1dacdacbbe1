// `reconcilekit plan` as a user runs it: the built CLI, an entry module exporting its Framework, a kubeconfig
// file for the embedded API server; exit code 0 / 2 / 1 and clear messages for bad entries.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startTestEnvironment, type TestEnvironment } from 'reconcilekit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const dir = join(root, `spec/cli/.tmp-plan-${process.pid}`);
let env: TestEnvironment;
let ns: string;

function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(root, 'bin/reconcilekit.js'), 'plan', ...args],
      (err, stdout, stderr) => {
        done({ code: err === null ? 0 : Number(err.code), stdout, stderr });
      },
    );
  });
}

function entry(file: string, text: string): string {
  const path = join(dir, file);
  writeFileSync(path, text);
  return path;
}

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  env = await startTestEnvironment({ crds: ['examples/greeting-operator/crd.yaml'] });
  ns = await env.createNamespace('plancli');
  writeFileSync(join(dir, 'kubeconfig'), env.kubeConfig.exportConfig());
  entry(
    'operator.mjs',
    `import { CRUDResource, Framework, ResourceSet } from 'reconcilekit';
import { greetingConfigMap } from '${join(root, 'dist/examples/greeting-operator/greeting-configmap.js')}';
export const framework = new Framework({
  name: 'greeting-operator',
  resource: { apiVersion: 'example.com/v1', kind: 'Greeting', plural: 'greetings' },
  resourceSets: [new ResourceSet({ resources: [new CRUDResource({ ops: greetingConfigMap })] })],
});
`,
  );
}, 60_000);

afterAll(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reconcilekit plan', () => {
  it('exits 0 with nothing to do, 2 with planned changes (table and json), and changes nothing', async () => {
    const kc = join(dir, 'kubeconfig');
    const empty = await run(join(dir, 'operator.mjs'), '--kubeconfig', kc, '-n', ns);
    expect(empty.stderr).toBe('');
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('Plan: 0 change(s) over 0 object(s)');

    await env.client.create({
      apiVersion: 'example.com/v1',
      kind: 'Greeting',
      plural: 'greetings',
      metadata: { name: 'hello', namespace: ns },
      spec: { message: 'hi' },
    } as never);
    const planned = await run(join(dir, 'operator.mjs'), '--kubeconfig', kc, '-n', ns);
    expect(planned.code).toBe(2);
    expect(planned.stdout).toMatch(new RegExp(`${ns}/hello\\s+0\\s+greeting-configmap\\s+1\\s+0\\s+0`));
    const json = await run(join(dir, 'operator.mjs'), '--kubeconfig', kc, '-n', ns, '-o', 'json');
    expect(json.code).toBe(2);
    const body = JSON.parse(json.stdout) as {
      changes: number;
      objects: { resources: { parts: { diff: unknown[] }[] }[] }[];
    };
    expect(body.changes).toBe(1);
    expect(body.objects[0]?.resources[0]?.parts[0]?.diff).toContainEqual({
      path: 'data.message',
      after: 'hi',
    });
    // -o diff: the planned ConfigMap's YAML as a unified diff; plain when stdout is no terminal, ANSI with --color.
    const diff = await run(join(dir, 'operator.mjs'), '--kubeconfig', kc, '-n', ns, '-o', 'diff');
    expect(diff.code).toBe(2);
    const lines = diff.stdout.split('\n');
    expect(lines).toContain(`# ${ns}/hello (resource set 0)`);
    expect(lines).toContain('--- /dev/null');
    expect(lines).toContain('+++ greeting-configmap (planned create)');
    expect(lines).toContain('+kind: ConfigMap');
    expect(lines).toContain('+  message: hi');
    expect(lines.find((l) => l.startsWith('@@'))).toMatch(/^@@ -0,0 \+1,\d+ @@$/);
    expect(diff.stdout).not.toContain('\u001b[');
    const colored = await run(
      join(dir, 'operator.mjs'),
      '--kubeconfig',
      kc,
      '-n',
      ns,
      '-o',
      'diff',
      '--color',
    );
    expect(colored.code).toBe(2);
    expect(colored.stdout).toContain('\u001b[32m+  message: hi\u001b[0m');
    const cms = await env.client.list({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      plural: 'configmaps',
      namespace: ns,
    });
    expect(cms.items).toHaveLength(0);
  }, 60_000);

  it('says what is wrong with a missing entry, one without a Framework, one with a syntax error; exit 1', async () => {
    const missing = await run(join(dir, 'nope.mjs'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.mjs does not exist/);
    const none = await run(entry('none.mjs', 'export const x = 1;\n'));
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/exports no Operator, Framework or Controller: add `export const operator/);
    const broken = await run(entry('broken.mjs', 'export const = ;\n'));
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/loading .*broken\.mjs failed/);
    const badOutput = await run(join(dir, 'operator.mjs'), '-o', 'yaml');
    expect(badOutput.code).toBe(1);
    expect(badOutput.stderr).toMatch(/-o must be table, json or diff/);
  }, 60_000);
});
