import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { KubeConfig, loadAllYaml, type KubernetesObject, type V1PolicyRule } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildKubeconfig, startApiServer } from '../../lib/apiserver/index.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { loadWebsiteCrd } from '../../examples/website-operator/website-crd.js';
import { eventually, removeDir, scratchDir } from './support/cluster.js';
import { RecordingProxy, type ApiCall } from './support/recording-proxy.js';

const RBAC = resolve('examples/website-operator/deploy/rbac.yaml');
const OPERATOR = resolve('dist/examples/website-operator/main.js');
const NAMESPACE = 'website-operator';
const WEBSITE = { apiVersion: 'demo.reconcilekit.io/v1', kind: 'Website', plural: 'websites' } as const;

/**
 * Granted but never requested on purpose: with `blockOwnerDeletion` on its children's ownerReferences,
 * a real cluster's OwnerReferencesPermissionEnforcement admission checks `update` on the owner's
 * finalizers subresource — a permission check, never a request the operator makes.
 */
const GRANTED_WITHOUT_REQUEST = new Set(['demo.reconcilekit.io websites/finalizers update']);

interface Grant {
  key: string;
  /** Namespace of a Role's grant; undefined for a ClusterRole's. */
  namespace: string | undefined;
}

function grants(): Grant[] {
  const docs = loadAllYaml(readFileSync(RBAC, 'utf8')) as (KubernetesObject & { rules?: V1PolicyRule[] })[];
  const out: Grant[] = [];
  for (const doc of docs) {
    if (doc.kind !== 'ClusterRole' && doc.kind !== 'Role') continue;
    const namespace = doc.kind === 'Role' ? doc.metadata?.namespace : undefined;
    for (const rule of doc.rules ?? []) {
      for (const group of rule.apiGroups ?? [''])
        for (const resource of rule.resources ?? [])
          for (const verb of rule.verbs) out.push({ key: `${group} ${resource} ${verb}`, namespace });
    }
  }
  return out;
}

const keyOf = (c: ApiCall): string => `${c.group} ${c.resource} ${c.verb}`;

// The example's entry point is the example engineer's; until it exists there is no operator to record.
describe.skipIf(!existsSync(resolve('examples/website-operator/main.ts')))(
  'security: the example RBAC grants only the verbs the operator uses',
  () => {
    const calls: ApiCall[] = [];
    let exitCode: number | null = null;

    beforeAll(async () => {
      const dir = scratchDir('rbac');
      const server = await startApiServer();
      const proxy = new RecordingProxy(server.url);
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(server.kubeconfig);
      const client = new ObjectClient({ kubeConfig, userAgent: 'rbac-driver' });
      let operator: ReturnType<typeof spawn> | undefined;
      try {
        await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
        await client.create(loadWebsiteCrd());
        await eventually(() => client.resolve(WEBSITE), 5_000, 'the Website CRD');
        const url = await proxy.start();
        writeFileSync(join(dir, 'kubeconfig'), buildKubeconfig(url));
        operator = spawn(
          process.execPath,
          [
            OPERATOR,
            '--leader-election-namespace',
            NAMESPACE,
            '--health-address',
            'off',
            '--output-dir',
            join(dir, 'pages'),
          ],
          {
            env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), LOG_LEVEL: 'warn' },
            stdio: 'ignore',
          },
        );
        const exited = new Promise<number | null>((r) =>
          operator?.once('exit', (code) => {
            r(code);
          }),
        );
        const site = (name: string, replicas: number, content: string) => ({
          apiVersion: WEBSITE.apiVersion,
          kind: WEBSITE.kind,
          metadata: { name, namespace: 'default' },
          spec: { title: name, content, replicas },
        });
        const ready = async (name: string): Promise<boolean> => {
          const w = await client.get<
            KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } }
          >({ ...WEBSITE, namespace: 'default', name });
          return w.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
        };
        // Create, update (every child), fail (Warning Event, then its aggregated repeat), delete.
        await client.create(site('alpha', 1, 'hello'));
        await eventually(() => ready('alpha'), 20_000, 'alpha to be ready', 100);
        await client.patch(
          { ...WEBSITE, namespace: 'default', name: 'alpha' },
          { spec: { replicas: 2, content: 'changed' } },
          'merge',
        );
        await eventually(
          async () =>
            (
              await client.get<KubernetesObject & { spec?: { replicas?: number } }>({
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                plural: 'deployments',
                namespace: 'default',
                name: 'alpha',
              })
            ).spec?.replicas === 2,
          20_000,
          'alpha to be updated',
          100,
        );
        // Drift: someone edits the Service by hand; the operator puts it back (update).
        const service = {
          apiVersion: 'v1',
          kind: 'Service',
          plural: 'services',
          namespace: 'default',
          name: 'alpha',
        };
        await client.patch(
          service,
          { spec: { ports: [{ name: 'http', port: 81, targetPort: 'http' }] } },
          'merge',
        );
        await eventually(
          async () =>
            (await client.get<KubernetesObject & { spec?: { ports?: { port: number }[] } }>(service)).spec
              ?.ports?.[0]?.port === 80,
          20_000,
          'the Service drift to be repaired',
          100,
        );
        server.faults.inject({ resource: 'deployments', verb: 'create', status: 500, times: 12 });
        await client.create(site('beta', 1, 'failing first'));
        await eventually(() => ready('beta'), 30_000, 'beta to recover from its errors', 100);
        await client.delete({ ...WEBSITE, namespace: 'default', name: 'alpha' });
        await client.delete({ ...WEBSITE, namespace: 'default', name: 'beta' });
        await eventually(
          async () => (await client.list({ ...WEBSITE, namespace: 'default' })).items.length === 0,
          20_000,
          'the Websites to be deleted',
          100,
        );
        operator.kill('SIGTERM');
        exitCode = await exited;
        calls.push(...proxy.calls);
      } finally {
        operator?.kill('SIGKILL');
        client.close();
        await proxy.close();
        await server.close();
        removeDir(dir);
      }
    }, 90_000);

    it('ran the whole lifecycle and exited cleanly', () => {
      expect(exitCode).toBe(0);
      expect(calls.length).toBeGreaterThan(10);
    });

    it('every request the operator made is granted by deploy/rbac.yaml', () => {
      const granted = grants();
      const denied = calls.filter(
        (c) =>
          !granted.some(
            (g) => g.key === keyOf(c) && (g.namespace === undefined || g.namespace === c.namespace),
          ),
      );
      expect([...new Set(denied.map((c) => `${keyOf(c)} (namespace ${c.namespace ?? '-'})`))]).toEqual([]);
    });

    it('every verb deploy/rbac.yaml grants is one the operator uses', () => {
      const used = new Set(calls.map(keyOf));
      // A watch uses list too: a watcher's initial list is a LIST on a server without watch-list.
      for (const c of calls) if (c.verb === 'watch') used.add(keyOf({ ...c, verb: 'list' }));
      const unused = [...new Set(grants().map((g) => g.key))].filter(
        (key) => !used.has(key) && !GRANTED_WITHOUT_REQUEST.has(key),
      );
      expect(unused).toEqual([]);
    });
  },
);
