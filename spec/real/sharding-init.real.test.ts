// `reconcilekit init --sharded` on a real kube-apiserver (`make test-real`, RBAC authorization on): the
// scaffolded project's manifests (CRD, namespace, RBAC, Deployment) are accepted by the server as
// written, and two replicas of its built main.js, run as its ServiceAccount (impersonated through the
// kubeconfig's `as`) with the pod's environment (POD_NAMESPACE, POD_NAME), split the objects between
// them, hand them over on a graceful stop and never hit a forbidden request: the generated RBAC grants
// the shard Leases and labels they use.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInitCommand } from '../../lib/cli/init-command.js';
import { isNotFound } from '../../lib/kube/api-error.js';
import { loadKubeConfig } from '../../lib/kube/kube-config.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { installCrds } from '../../lib/testing/install-crds.js';
import { applyManifests, readManifests } from '../../lib/testing/manifests.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { REAL_BACKEND } from './real-backend.js';
import { deleteClusterRbac, serviceAccountKubeconfig } from './service-account.js';

const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

describe.runIf(REAL_BACKEND)('init --sharded on a real kube-apiserver', () => {
  const suffix = randomBytes(3).toString('hex');
  const name = `shard-init-${suffix}`;
  const group = `${name}.example.com`;
  const scratch = mkdtempSync(join(tmpdir(), 'rk-shard-init-'));
  const dir = join(scratch, name);
  const greetings = { apiVersion: `${group}/v1`, kind: 'Greeting', plural: 'greetings', namespace: name };
  const configMaps = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: name };
  const NAMES = Array.from({ length: 12 }, (_, i) => `g${String(i)}`);
  let admin: ObjectClient;
  let applied: KubernetesObject[] = [];
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    const out: string[] = [];
    const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t) };
    const code = runInitCommand([dir, '--sharded', '--replicas', '2', '--controller', '--group', group], io);
    expect(code, out.join('')).toBe(0);
    // The project's dependencies are this checkout's build and its node_modules (no install).
    mkdirSync(join(dir, 'node_modules/@kubernetes'), { recursive: true });
    mkdirSync(join(dir, 'node_modules/@types'), { recursive: true });
    symlinkSync(root, join(dir, 'node_modules/reconcilekit'), 'dir');
    for (const dep of ['@kubernetes/client-node', '@types/node'])
      symlinkSync(join(root, 'node_modules', dep), join(dir, 'node_modules', dep), 'dir');
    await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir });
    admin = new ObjectClient({ kubeConfig: loadKubeConfig() });
    await installCrds(admin, await readManifests(join(dir, 'deploy/crd.yaml')));
  }, 120_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    const gone = (e: unknown): void => {
      if (!isNotFound(e)) throw e;
    };
    // beforeAll may have failed before creating it.
    if ((admin as ObjectClient | undefined) === undefined) return;
    await deleteClusterRbac(admin, applied);
    await admin.delete({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', name }).catch(gone);
    await admin
      .delete({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        plural: 'customresourcedefinitions',
        name: `greetings.${group}`,
      })
      .catch(gone);
    admin.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('accepts the manifests, and two replicas under the generated RBAC split, hand over and reconcile every object', async () => {
    const [namespace] = await readManifests(join(dir, 'deploy/namespace.yaml'));
    const rbac = await readManifests(join(dir, 'deploy/rbac.yaml'));
    const deployment = await readManifests(join(dir, 'deploy/operator.yaml'));
    applied = [namespace!, ...rbac, ...deployment];
    await applyManifests(admin, applied);
    const stored = await admin.get<KubernetesObject & { spec?: { replicas?: number } }>({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      plural: 'deployments',
      namespace: name,
      name,
    });
    expect(stored.spec?.replicas).toBe(2);

    const kubeconfig = serviceAccountKubeconfig(scratch, name, name);
    const outputs = new Map<string, string>();
    const exits = new Map<string, Promise<number | null>>();
    for (const pod of [`${name}-a`, `${name}-b`]) {
      outputs.set(pod, '');
      const child = spawn(process.execPath, ['dist/src/main.js'], {
        cwd: dir,
        env: {
          ...process.env,
          KUBECONFIG: kubeconfig,
          POD_NAMESPACE: name,
          POD_NAME: pod,
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const keep = (d: Buffer): void => {
        outputs.set(pod, (outputs.get(pod) ?? '') + d.toString());
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      exits.set(pod, new Promise((ok) => child.on('exit', ok)));
      children.push(child);
    }
    const all = (): string =>
      [...outputs].map(([pod, text]) => `--- ${pod}\n${text.slice(-4000)}`).join('\n');
    for (const n of NAMES) {
      await admin.create({
        apiVersion: greetings.apiVersion,
        kind: 'Greeting',
        metadata: { name: n, namespace: name },
        spec: { message: 'one' },
      } as KubernetesObject);
    }
    const messages = async (): Promise<Map<string, string | undefined>> =>
      new Map(
        (await admin.list<V1ConfigMap>(configMaps)).items.map((c) => [
          c.metadata?.name ?? '',
          c.data?.['message'],
        ]),
      );
    const converged = (message: string) => async (): Promise<boolean> => {
      const seen = await messages();
      return NAMES.every((n) => seen.get(`${n}-greeting`) === message);
    };
    await waitFor(converged('one'), {
      timeoutMs: 60_000,
      description: `every ConfigMap written; output:\n${all()}`,
    });
    const label = `shard.reconcilekit.io/${name}`;
    const owners = (await admin.list(greetings)).items.map((g) => g.metadata?.labels?.[label]);
    expect(new Set(owners).size, `shards: ${owners.join(', ')}`).toBe(2);
    // The ConfigMaps follow their owner's shard (the sharder labels each once it sees it: patch on
    // configmaps granted).
    await waitFor(
      async () =>
        (await admin.list<V1ConfigMap>(configMaps)).items
          .filter((c) => c.metadata?.name?.endsWith('-greeting') === true)
          .every((c) => owners.includes(c.metadata?.labels?.[label])),
      {
        timeoutMs: 30_000,
        description: `every ConfigMap labelled with its owner's shard; output:\n${all()}`,
      },
    );

    // A graceful stop: the replica marks its Lease leaving, hands its objects over, releases the Lease.
    children[0]?.kill('SIGTERM');
    expect(await exits.get(`${name}-a`)).toBe(0);
    for (const n of NAMES)
      await admin.patch({ ...greetings, name: n }, { spec: { message: 'two' } }, 'merge');
    await waitFor(converged('two'), {
      timeoutMs: 60_000,
      description: `every ConfigMap updated by the remaining replica; output:\n${all()}`,
    });
    expect(all()).toContain('handed');
    expect(all()).not.toMatch(/forbidden|\b403\b/i);
  }, 180_000);
});
