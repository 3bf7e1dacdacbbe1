// deploy/rbac.yaml (written by `reconcilekit generate rbac` from the operator's configuration and its
// rbac export) is least privilege: the operator (main.js, configured as in deploy/operator.yaml) runs
// through a recording proxy; every request it makes must be allowed by the RBAC rules, and every
// granted verb must be used (or be listed below with the reason it cannot show up here).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { isNotFound } from 'reconcilekit';
import { readManifests, startTestEnvironment, waitFor, type TestEnvironment } from 'reconcilekit/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { examplePath } from '../../../examples/website-operator/example-path.js';
import { checkRbac, startRecordingProxy } from '../../support/rbac-recorder.js';

const MAIN = 'dist/examples/website-operator/main.js';
const OPERATOR_NAMESPACE = 'website-operator';
/** Granted but not exercised here, with the reason. */
const NOT_EXERCISED = new Map([
  [
    'demo.reconcilekit.io/websites/finalizers:update',
    'checked by admission (blockOwnerDeletion), never requested',
  ],
  [
    'core/events:patch',
    'aggregates an identical Warning repeated within the window; not reached in this run',
  ],
]);

let env: TestEnvironment;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let operator: ChildProcess | undefined;
let workDir: string;

beforeAll(async () => {
  // Plain http: the recording proxy below reads each request in the clear.
  env = await startTestEnvironment({ crds: [examplePath('deploy', 'crd.yaml')], tls: false });
  workDir = await mkdtemp(join(tmpdir(), 'website-rbac-'));
  proxy = await startRecordingProxy(new URL(env.url));
  await writeFile(join(workDir, 'kubeconfig'), env.kubeconfigYaml.replace(env.url, proxy.url));
  await env.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: OPERATOR_NAMESPACE } });
});

afterAll(async () => {
  operator?.kill('SIGKILL');
  await proxy.close();
  await env.close();
  await rm(workDir, { recursive: true, force: true });
});

it('allows every request the operator makes, and grants nothing it does not use', async () => {
  expect(existsSync(MAIN), `${MAIN} is missing: run make build first`).toBe(true);
  const env2: NodeJS.ProcessEnv = {
    ...process.env,
    KUBECONFIG: join(workDir, 'kubeconfig'),
    LOG_LEVEL: 'error',
  };
  env2.POD_NAMESPACE = OPERATOR_NAMESPACE; // as deploy/operator.yaml: leader election in its own namespace
  env2.POD_NAME = 'website-operator-0';
  operator = spawn(
    process.execPath,
    [MAIN, '--output-dir', join(workDir, 'pages'), '--health-address', '127.0.0.1:0'],
    {
      env: env2,
      stdio: 'ignore',
    },
  );
  const site = (name: string, ns = 'default') => ({
    apiVersion: 'demo.reconcilekit.io/v1',
    kind: 'Website',
    plural: 'websites',
    namespace: ns,
    name,
  });
  const create = (name: string) =>
    env.client.create({
      apiVersion: 'demo.reconcilekit.io/v1',
      kind: 'Website',
      metadata: { name, namespace: 'default' },
      spec: { title: 'T', content: 'c' },
    } as KubernetesObject);
  // A normal life: create, update, delete.
  await create('rbac');
  const ready = async (name: string) => {
    const obj = await env.client.get<KubernetesObject & { status?: { conditions?: { status: string }[] } }>(
      site(name),
    );
    return obj.status?.conditions?.[0]?.status === 'True';
  };
  await waitFor(() => ready('rbac'), { timeoutMs: 20_000, description: 'website rbac Ready' });
  await env.client.patch(site('rbac'), { spec: { replicas: 2, content: 'd' } }, 'merge');
  await waitFor(() => proxy.seen.some((a) => a.resource === 'deployments' && a.verb === 'update'), {
    description: 'deployment updated',
  });
  // A failing one: its ConfigMap name (website name + "-page") is too long, so the reconcile fails and
  // the operator posts a Warning Event, then aggregates the repeats into it.
  await create('x'.repeat(250));
  await waitFor(() => proxy.seen.some((a) => a.resource === 'events' && a.verb === 'patch'), {
    timeoutMs: 20_000,
    description: 'a repeated Warning Event, aggregated',
  });
  // Drift: someone edits the Service; the operator (watching its children) puts it back.
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    plural: 'services',
    namespace: 'default',
    name: 'rbac',
  };
  await env.client.patch(service, { spec: { selector: { app: 'elsewhere' } } }, 'merge');
  await waitFor(() => proxy.seen.some((a) => a.resource === 'services' && a.verb === 'update'), {
    description: 'service repaired',
  });
  await env.client.delete(site('x'.repeat(250)));
  await env.client.delete(site('rbac'));
  await waitFor(
    () =>
      env.client.get(site('rbac')).then(
        () => false,
        (e: unknown) => isNotFound(e),
      ),
    {
      timeoutMs: 20_000,
      description: 'website rbac deleted',
    },
  );

  // Graceful stop: in-flight work finishes and the Lease is released (an update of the Lease).
  const exited = new Promise((resolve) => operator?.once('exit', resolve));
  operator.kill('SIGTERM');
  expect(await exited).toBe(0);

  const rbac = await readManifests(examplePath('deploy', 'rbac.yaml'));
  const { denied, unused } = checkRbac(rbac, proxy.seen, NOT_EXERCISED);
  expect(denied).toEqual([]);
  expect(unused).toEqual([]);
}, 60_000);
