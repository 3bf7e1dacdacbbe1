// The README's claim, on a real kube-apiserver (`make test-real`): two replicas of the built Website
// operator (dist/examples/website-operator/main.js) elect a leader through a Lease; the leader creates
// the children, the finalizer and Ready status, follows an update, hands over on SIGTERM (exit 0, Lease
// released) and the new leader finishes a deletion through the finalizer.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isNotFound } from '../../lib/kube/api-error.js';
import { loadKubeConfig } from '../../lib/kube/kube-config.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { installCrds } from '../../lib/testing/install-crds.js';
import { readManifests } from '../../lib/testing/manifests.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { REAL_BACKEND } from './real-backend.js';

const root = resolve(import.meta.dirname, '../..');
const MAIN = join(root, 'dist/examples/website-operator/main.js');
const WEBSITES = { apiVersion: 'demo.reconcilekit.io/v1', kind: 'Website', plural: 'websites' } as const;

interface Replica {
  name: string;
  child: ChildProcess;
  output: string;
  exit: Promise<number | null>;
  dir: string;
}

describe.runIf(REAL_BACKEND)('the Website operator on a real kube-apiserver', () => {
  let client: ObjectClient;
  const ns = `website-real-${randomBytes(3).toString('hex')}`;
  const scratch = mkdtempSync(join(tmpdir(), 'rk-website-real-'));
  const replicas: Replica[] = [];

  function startReplica(name: string): Replica {
    const dir = join(scratch, name);
    const child = spawn(
      process.execPath,
      [
        MAIN,
        '--namespace',
        ns,
        '--leader-election-namespace',
        ns,
        '--output-dir',
        dir,
        '--health-address',
        'off',
      ],
      { env: { ...process.env, POD_NAME: name }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const replica: Replica = {
      name,
      child,
      output: '',
      dir,
      exit: new Promise((ok) =>
        child.on('exit', (code) => {
          ok(code);
        }),
      ),
    };
    const keep = (d: Buffer): void => {
      replica.output += d.toString();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    replicas.push(replica);
    return replica;
  }

  const lease = async (): Promise<string | undefined> => {
    const got = (await client
      .get({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        plural: 'leases',
        namespace: ns,
        name: 'website-operator',
      })
      .catch(() => undefined)) as { spec?: { holderIdentity?: string } } | undefined;
    const holder = got?.spec?.holderIdentity;
    return holder === undefined || holder === '' ? undefined : holder;
  };

  const site = { ...WEBSITES, namespace: ns, name: 'hello' };

  beforeAll(async () => {
    expect(existsSync(MAIN), 'build first (make test-real does)').toBe(true);
    client = new ObjectClient({ kubeConfig: loadKubeConfig() });
    await installCrds(client, await readManifests(join(root, 'examples/website-operator/deploy/crd.yaml')));
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });

  afterAll(async () => {
    for (const r of replicas) r.child.kill('SIGKILL');
    await client
      .delete({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', name: ns })
      .catch(() => undefined);
    client.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('elects one leader, reconciles create and update, hands over on SIGTERM, and finishes a delete', async () => {
    startReplica('replica-a');
    startReplica('replica-b');
    const first = await waitFor(lease, { timeoutMs: 30_000, description: 'a Lease holder' });
    expect(['replica-a', 'replica-b']).toContain(first);
    const leader = replicas.find((r) => r.name === first);
    const follower = replicas.find((r) => r.name !== first);
    if (leader === undefined || follower === undefined) throw new Error('no replicas');

    // Create: children, finalizer, Ready status, page file.
    await client.create({
      apiVersion: WEBSITES.apiVersion,
      kind: WEBSITES.kind,
      metadata: { name: 'hello', namespace: ns },
      spec: { title: 'Hello', content: 'first' },
    });
    const ready = await waitFor(
      async () => {
        const obj = await client.get<
          KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } }
        >(site);
        return obj.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true
          ? obj
          : undefined;
      },
      { timeoutMs: 30_000, description: 'Website Ready' },
    );
    expect(ready.metadata?.finalizers?.length ?? 0).toBeGreaterThan(0);
    const children = await client.list({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      plural: 'configmaps',
      namespace: ns,
    });
    expect(children.items.some((c) => c.metadata?.name?.startsWith('hello') === true)).toBe(true);
    const page = join(leader.dir, ns, 'hello.html');
    await waitFor(() => existsSync(page) && readFileSync(page, 'utf8').includes('first'), {
      timeoutMs: 20_000,
      description: 'the page file',
    });

    // Update: the page follows.
    await client.patch(site, { spec: { content: 'second' } }, 'merge');
    await waitFor(() => readFileSync(page, 'utf8').includes('second'), {
      timeoutMs: 20_000,
      description: 'the updated page',
    });

    // Graceful shutdown of the leader: exit 0, the follower takes the Lease.
    leader.child.kill('SIGTERM');
    expect(await leader.exit).toBe(0);
    await waitFor(async () => (await lease()) === follower.name, {
      timeoutMs: 45_000,
      description: 'the follower to lead',
    });

    // Delete: the new leader runs the finalizer; the Website and its children go away.
    await client.delete(site);
    await waitFor(
      async () => {
        try {
          await client.get(site);
          return false;
        } catch (e) {
          return isNotFound(e);
        }
      },
      { timeoutMs: 30_000, description: 'the Website to be gone' },
    );
    const left = await client.list({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      plural: 'configmaps',
      namespace: ns,
    });
    expect(left.items.filter((c) => c.metadata?.name?.startsWith('hello') === true)).toEqual([]);
    follower.child.kill('SIGTERM');
    expect(await follower.exit).toBe(0);
  }, 180_000);
});
