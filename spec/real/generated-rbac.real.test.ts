// `reconcilekit generate` on a real kube-apiserver (`make test-real`, RBAC authorization on): the RBAC it
// derives for the built Website operator is applied, and the operator runs as that ServiceAccount
// (impersonated through the kubeconfig's `as`) — it reconciles a Website to Ready, follows its deletion
// through the finalizer and releases its Lease without one forbidden request, while a request outside
// the grant is refused with 403.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGenerateCommand } from '../../lib/cli/generate-command.js';
import { isApiError, isNotFound } from '../../lib/kube/api-error.js';
import { loadKubeConfig } from '../../lib/kube/kube-config.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { installCrds } from '../../lib/testing/install-crds.js';
import { applyManifests, readManifests } from '../../lib/testing/manifests.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { REAL_BACKEND } from './real-backend.js';
import { deleteClusterRbac, serviceAccountKubeconfig } from './service-account.js';

const root = resolve(import.meta.dirname, '../..');
const MAIN = join(root, 'dist/examples/website-operator/main.js');
const WEBSITES = { apiVersion: 'demo.reconcilekit.io/v1', kind: 'Website', plural: 'websites' } as const;

describe.runIf(REAL_BACKEND)('generated RBAC on a real kube-apiserver', () => {
  const suffix = randomBytes(3).toString('hex');
  const ns = `gen-rbac-${suffix}`;
  const name = `website-gen-${suffix}`;
  const scratch = mkdtempSync(join(tmpdir(), 'rk-gen-rbac-'));
  let admin: ObjectClient;
  let rbac: KubernetesObject[];

  beforeAll(async () => {
    expect(existsSync(MAIN), `${MAIN} is missing: run make build first`).toBe(true);
    const out: string[] = [];
    const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t) };
    const code = await runGenerateCommand(
      ['rbac', MAIN, '--out', scratch, '--name', name, '--namespace', ns, '--leader-election'],
      io,
    );
    expect(code, out.join('')).toBe(0);
    admin = new ObjectClient({ kubeConfig: loadKubeConfig() });
    await installCrds(admin, await readManifests(join(root, 'examples/website-operator/deploy/crd.yaml')));
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    rbac = await readManifests(join(scratch, 'rbac.yaml'));
    await applyManifests(admin, rbac);
  }, 60_000);

  afterAll(async () => {
    const gone = (e: unknown): void => {
      if (!isNotFound(e)) throw e;
    };
    await deleteClusterRbac(admin, rbac);
    await admin.delete({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', name: ns }).catch(gone);
    admin.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('lets the operator do its work as the ServiceAccount, and nothing beyond', async () => {
    const kubeconfig = serviceAccountKubeconfig(scratch, ns, name);
    const asOperator = new ObjectClient({
      kubeConfig: loadKubeConfig({ ...process.env, KUBECONFIG: kubeconfig }),
    });
    try {
      // The identity is bound: what the rules do not grant is refused.
      const refused = await asOperator
        .list({ apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespace: ns })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isApiError(refused) ? refused.code : refused).toBe(403);
    } finally {
      asOperator.close();
    }

    let output = '';
    const child = spawn(
      process.execPath,
      [MAIN, '--namespace', ns, '--output-dir', join(scratch, 'pages'), '--health-address', 'off'],
      {
        env: {
          ...process.env,
          KUBECONFIG: kubeconfig,
          POD_NAMESPACE: ns,
          POD_NAME: 'gen-0',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const keep = (d: Buffer): void => {
      output += d.toString();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const exited = new Promise<number | null>((ok) => child.on('exit', ok));
    try {
      const site = { ...WEBSITES, namespace: ns, name: 'hello' };
      await admin.create({
        apiVersion: WEBSITES.apiVersion,
        kind: WEBSITES.kind,
        metadata: { name: 'hello', namespace: ns },
        spec: { title: 'Generated', content: 'RBAC from the configuration' },
      } as KubernetesObject);
      const ready = async (): Promise<boolean> => {
        const o = await admin.get<
          KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } }
        >(site);
        return o.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
      };
      await waitFor(ready, {
        timeoutMs: 30_000,
        description: `Website hello Ready (operator output: ${output})`,
      });
      const deployment = await admin.get({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        plural: 'deployments',
        namespace: ns,
        name: 'hello',
      });
      expect(deployment.metadata?.ownerReferences?.[0]?.name).toBe('hello');
      await admin.delete(site);
      await waitFor(
        () =>
          admin.get(site).then(
            () => false,
            (e: unknown) => isNotFound(e),
          ),
        { timeoutMs: 30_000, description: 'Website hello deleted through the finalizer' },
      );
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).not.toMatch(/forbidden/i);
      const lease = await admin.get<KubernetesObject & { spec?: { holderIdentity?: string } }>({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        plural: 'leases',
        namespace: ns,
        name: 'website-operator',
      });
      expect(lease.spec?.holderIdentity ?? '').toBe('');
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});
