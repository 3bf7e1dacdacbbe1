// The InformerController example (examples/informer-controller/main.ts, linked from
// docs/coming-from-grafana-app-sdk.md) runs as a real process against the embedded API server. `make test`
// builds first; run `make build` before running this file alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import { isNotFound } from 'reconcilekit';
import { startTestEnvironment, waitFor, type TestEnvironment } from 'reconcilekit/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

const MAIN = 'dist/examples/informer-controller/main.js';
const FINALIZER = 'example.com/widget-configmap';
const widget = { apiVersion: 'example.com/v1', kind: 'Widget', plural: 'widgets', namespace: 'default' };
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' };

let env: TestEnvironment;
let workDir: string;
let child: ChildProcess;
let output = '';

const gone = (err: unknown): undefined => {
  if (isNotFound(err)) return undefined;
  throw err;
};

beforeAll(async () => {
  env = await startTestEnvironment({ crds: ['examples/informer-controller/crd.yaml'] });
  workDir = await mkdtemp(join(tmpdir(), 'informer-controller-'));
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

it('adds its finalizer and a ConfigMap per Widget, updates it, cleans up on delete, and exits 0 on SIGTERM', async () => {
  await env.client.create({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'blue', namespace: 'default' },
    spec: { color: 'blue' },
  } as KubernetesObject);
  const created = await waitFor(() => env.client.get<V1ConfigMap>({ ...configMap, name: 'blue-widget' }), {
    timeoutMs: 15_000,
  });
  expect(created.data).toEqual({ color: 'blue' });
  await waitFor(async () => {
    const w = await env.client.get({ ...widget, name: 'blue' });
    return w.metadata?.finalizers?.includes(FINALIZER) === true;
  });

  await env.client.patch({ ...widget, name: 'blue' }, { spec: { color: 'navy' } }, 'merge');
  await waitFor(async () => {
    const cm = await env.client.get<V1ConfigMap>({ ...configMap, name: 'blue-widget' });
    return cm.data?.color === 'navy';
  });

  // No ownerReference: only the delete logic behind the finalizer removes the ConfigMap.
  await env.client.delete({ ...widget, name: 'blue' });
  await waitFor(async () => {
    const w = await env.client.get({ ...widget, name: 'blue' }).catch(gone);
    const cm = await env.client.get({ ...configMap, name: 'blue-widget' }).catch(gone);
    return w === undefined && cm === undefined;
  });
  await waitFor(() => output.includes('widget cleaned up')); // the log line may trail the API by a pipe read

  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  expect(await exit).toBe(0);
  expect(output).toContain('informer controller started');
});
