// The phase example (examples/phases-operator/main.ts, linked from docs/phases-and-status.md) runs as a real
// process against the embedded API server. `make test` builds first; run `make build` before running this
// file alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import { isNotFound, type StatusCondition } from 'reconcilekit';
import { startTestEnvironment, waitFor, type TestEnvironment } from 'reconcilekit/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

const MAIN = 'dist/examples/phases-operator/main.js';
const note = { apiVersion: 'example.com/v1', kind: 'Note', plural: 'notes', namespace: 'default' };
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' };
type Note = KubernetesObject & { status?: { conditions?: StatusCondition[] } };

let env: TestEnvironment;
let workDir: string;
let notesDir: string;
let child: ChildProcess;
let output = '';

beforeAll(async () => {
  env = await startTestEnvironment({ crds: ['examples/phases-operator/crd.yaml'] }); // generated from note.ts
  workDir = await mkdtemp(join(tmpdir(), 'phases-operator-'));
  notesDir = await mkdtemp(join(workDir, 'notes-'));
  const kubeconfig = join(workDir, 'kubeconfig');
  await writeFile(kubeconfig, env.kubeconfigYaml);
  child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, KUBECONFIG: kubeconfig, NOTES_DIR: notesDir, LOG_LEVEL: 'info' },
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

const fileText = (): Promise<string | undefined> =>
  readFile(join(notesDir, 'default.todo.txt'), 'utf8').catch(() => undefined);
const ready = async (): Promise<StatusCondition | undefined> => {
  const obj = await env.client.get<Note>({ ...note, name: 'todo' });
  return obj.status?.conditions?.find((c) => c.type === 'Ready');
};

it('creates the ConfigMap and the remote file under a guarded Ready condition, removes the file on deletion, and exits 0 on SIGTERM', async () => {
  await env.client.create({
    apiVersion: 'example.com/v1',
    kind: 'Note',
    metadata: { name: 'todo', namespace: 'default' },
    spec: { text: 'buy milk' },
  } as KubernetesObject);
  const created = await waitFor(() => env.client.get<V1ConfigMap>({ ...configMap, name: 'todo-note' }), {
    timeoutMs: 15_000,
  });
  expect(created.data).toEqual({ text: 'buy milk' });
  expect(created.metadata?.ownerReferences?.[0]).toMatchObject({
    kind: 'Note',
    name: 'todo',
    controller: true,
  });
  await waitFor(async () => (await fileText()) === 'buy milk' && (await ready())?.status === 'True');
  expect(await ready()).toMatchObject({ status: 'True', reason: 'Synced' });
  const withFinalizer = await env.client.get<Note>({ ...note, name: 'todo' });
  expect(withFinalizer.metadata?.finalizers?.length).toBe(1);

  // An update reaches both phases.
  await env.client.patch({ ...note, name: 'todo' }, { spec: { text: 'buy oat milk' } }, 'merge');
  await waitFor(async () => {
    const cm = await env.client.get<V1ConfigMap>({ ...configMap, name: 'todo-note' });
    return cm.data?.text === 'buy oat milk' && (await fileText()) === 'buy oat milk';
  });

  // Deletion: the finalizer holds the Note until hooks.delete removed the file, then the Note is gone.
  await env.client.delete({ ...note, name: 'todo' });
  await waitFor(() =>
    env.client.get<Note>({ ...note, name: 'todo' }).then(
      () => false,
      (err: unknown) => isNotFound(err),
    ),
  );
  await expect(access(join(notesDir, 'default.todo.txt'))).rejects.toThrow();

  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  expect(await exit).toBe(0);
  expect(output).toContain('controller started');
});
