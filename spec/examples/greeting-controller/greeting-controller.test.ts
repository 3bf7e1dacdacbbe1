// The reconcile-function example (examples/greeting-controller/main.ts, shown in docs/controller.md) runs as
// a real process against the embedded API server. `make test` builds first; run `make build` before running
// this file alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import { startTestEnvironment, waitFor, type TestEnvironment } from 'reconcilekit/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

const MAIN = 'dist/examples/greeting-controller/main.js';
const greeting = {
  apiVersion: 'example.com/v1',
  kind: 'Greeting',
  plural: 'greetings',
  namespace: '',
};
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: '' };

let env: TestEnvironment;
let workDir: string;
let child: ChildProcess;
let output = '';

beforeAll(async () => {
  env = await startTestEnvironment({ crds: ['examples/greeting-controller/crd.yaml'] });
  // A namespace of its own, so the spec also runs on a shared cluster (`make test-real`).
  greeting.namespace = configMap.namespace = await env.createNamespace('greeting');
  workDir = await mkdtemp(join(tmpdir(), 'greeting-controller-'));
  const kubeconfig = join(workDir, 'kubeconfig');
  await writeFile(kubeconfig, env.kubeconfigYaml);
  child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, KUBECONFIG: kubeconfig, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
});

afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await env.close();
  await rm(workDir, { recursive: true, force: true });
});

it('creates and updates the ConfigMap of a Greeting, restores it when deleted, and exits 0 on SIGTERM', async () => {
  await env.client.create({
    apiVersion: 'example.com/v1',
    kind: 'Greeting',
    metadata: { name: 'hello', namespace: greeting.namespace },
    spec: { message: 'Hello!' },
  } as KubernetesObject);
  const created = await waitFor(() => env.client.get<V1ConfigMap>({ ...configMap, name: 'hello-greeting' }), {
    timeoutMs: 15_000,
  });
  expect(created.data).toEqual({ message: 'Hello!' });
  expect(created.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Greeting', name: 'hello' });

  await env.client.patch({ ...greeting, name: 'hello' }, { spec: { message: 'Hi again' } }, 'merge');
  await waitFor(async () => {
    const cm = await env.client.get<V1ConfigMap>({ ...configMap, name: 'hello-greeting' });
    return cm.data?.message === 'Hi again';
  });

  // Owned: deleting the ConfigMap wakes its Greeting, which puts it back.
  await env.client.delete({ ...configMap, name: 'hello-greeting' });
  await waitFor(async () => {
    const cm = await env.client
      .get<V1ConfigMap>({ ...configMap, name: 'hello-greeting' })
      .catch(() => undefined);
    return cm?.data?.message === 'Hi again';
  });

  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  expect(await exit).toBe(0);
  expect(output).toContain('controller started');
});

it('is the file docs/controller.md shows, with its kind', async () => {
  const doc = await readFile('docs/controller.md', 'utf8');
  for (const file of ['greeting.ts', 'main.ts']) {
    const example = await readFile(`examples/greeting-controller/${file}`, 'utf8');
    expect(doc).toContain(`\`\`\`ts file=${file}\n${example.trim()}\n\`\`\``);
  }
});

it('is the file docs/operator.md shows', async () => {
  const doc = await readFile('docs/operator.md', 'utf8');
  const example = await readFile('examples/greeting-controller/two-controllers.ts', 'utf8');
  expect(doc).toContain(example.trim());
});

it('is the reconcile-function quick start README.md shows, with its kind', async () => {
  const readme = await readFile('README.md', 'utf8');
  for (const file of ['greeting.ts', 'main.ts']) {
    const example = await readFile(`examples/greeting-controller/${file}`, 'utf8');
    expect(readme).toContain(`\`\`\`ts file=${file}\n${example.trim()}\n\`\`\``);
  }
});
