// The Helm chart `reconcilekit generate helm` wrote for the Website operator (examples/website-operator/
// deploy/chart), rendered by the real helm CLI (envtest/helm.sh builds it from the Go module proxy; `make
// test-real` passes its path in HELM) and applied to a real kube-apiserver with kubectl: `helm lint` passes,
// every object is accepted, and the release's ServiceAccount may do exactly what the generated rbac.yaml
// grants — cluster-wide with the default values, only in the watched namespace with `watchNamespace` — and
// not what it does not grant.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadAll } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { REAL_BACKEND } from './real-backend.js';

const root = resolve(import.meta.dirname, '../..');
const CHART = join(root, 'examples/website-operator/deploy/chart');
const HELM = process.env.HELM ?? '';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
interface Manifest {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  rules?: Rule[];
  spec?: { template?: { spec?: { containers?: { env?: { name: string; value?: string }[] }[] } } };
}

// The rules of the committed rbac.yaml: what the operator's recorded runs use (spec/real/generated-rbac).
const committed = loadAll(
  readFileSync(join(root, 'examples/website-operator/deploy/rbac.yaml'), 'utf8'),
) as Manifest[];
const clusterRules = committed.find((o) => o.kind === 'ClusterRole')?.rules ?? [];

const helm = (...args: string[]): string => execFileSync(HELM, args, { encoding: 'utf8' });
const kubectl = (args: string[], input?: string): { code: number; out: string } => {
  const r = spawnSync('kubectl', args, { input, encoding: 'utf8' });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
};
const resourceOf = (group: string, resource: string): string =>
  group === ''
    ? resource
    : `${resource.split('/')[0]}.${group}${resource.includes('/') ? `/${resource.split('/')[1]}` : ''}`;
// `kubectl auth can-i` (a subresource goes in --subresource) for every check, six kubectl processes at a
// time; gives each check's answer.
interface Check {
  verb: string;
  group: string;
  resource: string;
  ns?: string;
}
const canI = async (sa: string, checks: Check[]): Promise<Map<Check, boolean>> => {
  const answers = new Map<Check, boolean>();
  const queue = [...checks];
  const worker = async (): Promise<void> => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
      const [base, sub] = c.resource.split('/');
      const args = ['auth', 'can-i', c.verb, resourceOf(c.group, base ?? ''), `--as=${sa}`];
      if (sub !== undefined) args.push(`--subresource=${sub}`);
      args.push(c.ns === undefined ? '--all-namespaces' : `--namespace=${c.ns}`);
      const r = await new Promise<{ code: number; out: string }>((done) =>
        execFile('kubectl', args, { encoding: 'utf8' }, (e, stdout, stderr) => {
          done({
            code: e === null ? 0 : typeof e.code === 'number' ? e.code : -1,
            out: `${stdout}${stderr}`,
          });
        }),
      );
      expect(r.out.trim(), `kubectl ${args.join(' ')}`).toMatch(/^(yes|no)/);
      answers.set(c, r.code === 0);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  return answers;
};
const granted = (ns?: string): Check[] =>
  clusterRules.flatMap((rule) =>
    rule.apiGroups.flatMap((group) =>
      rule.resources.flatMap((resource) =>
        rule.verbs.map((verb) =>
          ns === undefined ? { verb, group, resource } : { verb, group, resource, ns },
        ),
      ),
    ),
  );
const describeCheck = (c: Check): string =>
  `${c.verb} ${c.group}/${c.resource}${c.ns === undefined ? '' : ` in ${c.ns}`}`;

describe.runIf(REAL_BACKEND)(
  'the generated Helm chart, rendered by helm and applied to kube-apiserver',
  () => {
    const suffix = randomBytes(3).toString('hex');
    const releaseNs = `helm-${suffix}`;
    const team = `helm-team-${suffix}`;
    const other = `helm-other-${suffix}`;

    afterAll(() => {
      // Namespaced objects go with their namespaces; the CRD stays (other specs on this server use Website).
      for (const release of [`web-${suffix}`, `web-team-${suffix}`])
        kubectl(['delete', 'clusterrole,clusterrolebinding', release, '--ignore-not-found', '--wait=false']);
      for (const ns of [releaseNs, team, other])
        kubectl(['delete', 'namespace', ns, '--ignore-not-found', '--wait=false']);
    });

    it('finds the helm binary (make test-real builds it with envtest/helm.sh)', () => {
      expect(HELM, 'HELM is unset: run the spec through make test-real').not.toBe('');
      expect(helm('version', '--short')).toMatch(/^v3\./);
    });

    it('passes helm lint', () => {
      expect(helm('lint', CHART)).toMatch(/0 chart\(s\) failed/);
    });

    it('with the default values grants the rules of rbac.yaml cluster-wide, and nothing else', async () => {
      const release = `web-${suffix}`;
      for (const ns of [releaseNs, other]) expect(kubectl(['create', 'namespace', ns]).code).toBe(0);
      // --include-crds: what `helm install` does with the chart's crds/ directory.
      const text = helm('template', release, CHART, '--namespace', releaseNs, '--include-crds');
      const objects = (loadAll(text) as (Manifest | null)[]).filter((o): o is Manifest => o !== null);
      expect(objects.map((o) => o.kind).sort()).toEqual(
        [
          'ClusterRole',
          'ClusterRoleBinding',
          'CustomResourceDefinition',
          'Deployment',
          'Role',
          'RoleBinding',
          'ServiceAccount',
        ].sort(),
      );
      const r = kubectl(['apply', '-f', '-'], text);
      expect(r.code, r.out).toBe(0);
      const sa = `system:serviceaccount:${releaseNs}:${release}`;
      expect(clusterRules.length).toBeGreaterThan(3);
      const yes = [
        ...granted(),
        { verb: 'update', group: 'coordination.k8s.io', resource: 'leases', ns: releaseNs },
      ];
      // Not granted: reading Secrets, deleting Websites, and the Lease outside the release namespace.
      const no = [
        { verb: 'get', group: '', resource: 'secrets' },
        { verb: 'delete', group: 'demo.reconcilekit.io', resource: 'websites' },
        { verb: 'update', group: 'coordination.k8s.io', resource: 'leases', ns: other },
      ];
      const answers = await canI(sa, [...yes, ...no]);
      expect(yes.filter((c) => answers.get(c) !== true).map(describeCheck)).toEqual([]);
      expect(no.filter((c) => answers.get(c) !== false).map(describeCheck)).toEqual([]);
    });

    it('with watchNamespace grants the rules in that namespace only and tells the operator which one', async () => {
      const release = `web-team-${suffix}`;
      expect(kubectl(['create', 'namespace', team]).code).toBe(0);
      const text = helm(
        'template',
        release,
        CHART,
        '--namespace',
        releaseNs,
        '--set',
        `watchNamespace=${team}`,
      );
      const objects = (loadAll(text) as (Manifest | null)[]).filter((o): o is Manifest => o !== null);
      expect(objects.some((o) => o.kind === 'ClusterRole')).toBe(false);
      const env =
        objects.find((o) => o.kind === 'Deployment')?.spec?.template?.spec?.containers?.[0]?.env ?? [];
      expect(env).toContainEqual({ name: 'WATCH_NAMESPACE', value: team });
      const r = kubectl(['apply', '-f', '-'], text);
      expect(r.code, r.out).toBe(0);
      const sa = `system:serviceaccount:${releaseNs}:${release}`;
      const yes = granted(team);
      const no = granted(other);
      const answers = await canI(sa, [...yes, ...no]);
      expect(yes.filter((c) => answers.get(c) !== true).map(describeCheck)).toEqual([]);
      expect(no.filter((c) => answers.get(c) !== false).map(describeCheck)).toEqual([]);
    });
  },
);
