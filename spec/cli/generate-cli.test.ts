// `reconcilekit generate`: the RBAC derived from an operator's configuration (the engine's requests) and
// its `rbac` declaration, the CRDs of its kinds, the Helm chart, the staleness check, and the errors that
// say what to add. The website example's committed deploy/rbac.yaml is this command's output; the specs
// spec/examples/website-operator/rbac.test.ts and spec/reliability/rbac.test.ts compare it with the
// requests of recorded runs, and spec/real/generated-rbac.real.test.ts runs the operator under it on a
// real kube-apiserver.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { loadAll as loadAllYaml } from 'js-yaml';
import { Controller, Framework, ResourceSet, silentLogger } from 'reconcilekit';
import { afterAll, describe, expect, it } from 'vitest';
import {
  generateFiles,
  parseGenerateArgs,
  renderCrds,
  runGenerateCommand,
  type LoadedEntry,
} from '../../lib/cli/generate-command.js';
import { Gadget } from '../kinds/fixtures/gadget-kind.js';

const root = resolve(import.meta.dirname, '../..');
const WEBSITE_MAIN = join(root, 'dist/examples/website-operator/main.js');
const scratch = mkdtempSync(join(tmpdir(), 'rk-generate-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser({ name: 'c', server: 'https://127.0.0.1:9', skipTLSVerify: true }, { name: 'u' });
  return kc;
}

/** A resource set whose one resource does nothing: generate reads the configuration only. */
function sets(): ResourceSet[] {
  const idle = { name: 'idle', ensureCreated: async () => {}, ensureDeleted: async () => {} };
  return [new ResourceSet({ resources: [idle] })];
}

function io() {
  const out: string[] = [];
  return { out, stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t) };
}

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** `group resource verb` of every rule of the documents of `kind`, with the Role's namespace. */
function grantsOf(yaml: string, kind: 'ClusterRole' | 'Role'): string[] {
  const docs = loadAllYaml(yaml) as (KubernetesObject & { rules?: Rule[] })[];
  return docs
    .filter((d) => d.kind === kind)
    .flatMap((d) =>
      (d.rules ?? []).flatMap((r) =>
        r.apiGroups.flatMap((g) =>
          r.resources.flatMap((res) =>
            r.verbs.map((v) => `${d.metadata?.namespace ?? '*'} ${g || 'core'} ${res} ${v}`),
          ),
        ),
      ),
    )
    .sort();
}

const args = (what: 'all' | 'rbac' | 'crd' | 'helm', extra: string[] = []) => {
  const parsed = parseGenerateArgs([what, 'entry.js', ...extra]);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
};

describe('reconcilekit generate rbac', () => {
  it('derives the engine requests of a Framework on a kind: primary, status, finalizers, owned, watched, Events, Lease, CRD', () => {
    const framework = new Framework({
      name: 'gadget-operator',
      kubeConfig: kubeConfig(),
      resource: Gadget,
      crd: Gadget.crd(),
      owns: [{ apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' }],
      watches: [
        {
          apiVersion: 'v1',
          kind: 'Secret',
          plural: 'secrets',
          namespace: 'config',
          map: () => [],
        },
      ],
      leaderElection: { leaseName: 'gadget-operator', namespace: 'gadgets-system' },
      resourceSets: sets(),
      logger: silentLogger(),
    });
    const entry: LoadedEntry = {
      kinds: [Gadget],
      configs: [framework.config],
      rbac: { uses: [{ apiVersion: 'apps/v1', plural: 'deployments', verbs: ['get', 'create', 'delete'] }] },
    };
    const files = generateFiles(args('all', ['--namespace', 'gadgets-system']), entry);
    const rbac = files.get('rbac.yaml') ?? '';
    expect(grantsOf(rbac, 'ClusterRole')).toEqual(
      [
        '* apiextensions.k8s.io customresourcedefinitions create',
        '* apiextensions.k8s.io customresourcedefinitions get',
        '* apps deployments create',
        '* apps deployments delete',
        '* apps deployments get',
        '* apps deployments list',
        '* apps deployments watch',
        '* core events create',
        '* core events patch',
        '* kinds.reconcilekit.test gadgets get',
        '* kinds.reconcilekit.test gadgets list',
        '* kinds.reconcilekit.test gadgets patch',
        '* kinds.reconcilekit.test gadgets watch',
        '* kinds.reconcilekit.test gadgets/finalizers update',
        '* kinds.reconcilekit.test gadgets/status patch',
      ].sort(),
    );
    // Namespaced grants become Roles in their namespaces: the watched Secrets, the Lease.
    expect(grantsOf(rbac, 'Role')).toEqual(
      [
        'config core secrets list',
        'config core secrets watch',
        'gadgets-system coordination.k8s.io leases create',
        'gadgets-system coordination.k8s.io leases get',
        'gadgets-system coordination.k8s.io leases update',
      ].sort(),
    );
    // Each Role and ClusterRole is bound to the ServiceAccount.
    const docs = loadAllYaml(rbac) as (KubernetesObject & {
      roleRef?: { kind: string; name: string };
      subjects?: { name: string; namespace: string }[];
    })[];
    const sa = docs.find((d) => d.kind === 'ServiceAccount');
    expect(sa?.metadata).toMatchObject({ name: 'gadget-operator', namespace: 'gadgets-system' });
    for (const role of docs.filter((d) => d.kind === 'Role' || d.kind === 'ClusterRole')) {
      const binding = docs.find(
        (d) => d.roleRef?.kind === role.kind && d.roleRef?.name === role.metadata?.name,
      );
      expect(binding?.subjects).toEqual([
        { kind: 'ServiceAccount', name: 'gadget-operator', namespace: 'gadgets-system' },
      ]);
    }
    // The CRD file is the kind's CRD.
    expect(loadAllYaml(files.get('crd.yaml') ?? '')).toEqual([Gadget.crd()]);
  });

  it('puts namespaced rules other than the Lease in a Role of their namespace in the chart', () => {
    const controller = new Controller({
      name: 'scoped',
      kubeConfig: kubeConfig(),
      resource: { ...Gadget, namespace: 'team-a' },
      events: false,
      errorCondition: false,
      reconciler: () => undefined,
      logger: silentLogger(),
    });
    const entry = { kinds: [Gadget], configs: [controller.config], rbac: undefined };
    const chartRbac = (namespace: string) =>
      generateFiles(args('helm', ['--namespace', namespace]), entry).get('chart/templates/rbac.yaml') ?? '';
    const elsewhere = chartRbac('ops');
    expect(elsewhere).toContain(
      'kind: Role\nmetadata:\n  name: {{ .Release.Name }}-ns-1\n  namespace: "team-a"',
    );
    expect(elsewhere).toMatch(
      /resources: \["gadgets"\]\n {4}verbs: \[get, list, watch\]\n---\napiVersion: rbac.authorization.k8s.io\/v1\nkind: RoleBinding/,
    );
    // The operator's own namespace is the release namespace.
    expect(chartRbac('team-a')).toContain(
      'name: {{ .Release.Name }}-ns-1\n  namespace: {{ .Release.Namespace }}',
    );
  });

  it('grants a Controller without cleanup no finalizer patch, and nothing for Events when they are off', () => {
    const controller = new Controller({
      name: 'quiet',
      kubeConfig: kubeConfig(),
      resource: { ...Gadget, namespace: 'team-a' },
      events: false,
      errorCondition: false,
      reconciler: () => undefined,
      logger: silentLogger(),
    });
    const files = generateFiles(args('rbac', ['--namespace', 'team-a']), {
      kinds: [Gadget],
      configs: [controller.config],
      rbac: undefined,
    });
    const rbac = files.get('rbac.yaml') ?? '';
    expect(grantsOf(rbac, 'ClusterRole')).toEqual([]);
    expect(grantsOf(rbac, 'Role')).toEqual([
      'team-a kinds.reconcilekit.test gadgets get',
      'team-a kinds.reconcilekit.test gadgets list',
      'team-a kinds.reconcilekit.test gadgets watch',
    ]);
  });

  it('refuses what it cannot derive, saying what to add', () => {
    const framework = new Framework({
      name: 'no-plural',
      kubeConfig: kubeConfig(),
      resource: { apiVersion: 'example.com/v1', kind: 'Thing' },
      resourceSets: sets(),
      logger: silentLogger(),
    });
    const entry = (rbac?: unknown): LoadedEntry => ({
      kinds: [],
      configs: [framework.config],
      rbac: rbac as LoadedEntry['rbac'],
    });
    expect(() => generateFiles(args('rbac'), entry())).toThrow(
      /no-plural: resource \(Thing example.com\/v1\) has no plural/,
    );
    const withPlural = new Framework({
      name: 'ok',
      kubeConfig: kubeConfig(),
      resource: { apiVersion: 'example.com/v1', kind: 'Thing', plural: 'things' },
      resourceSets: sets(),
      logger: silentLogger(),
    });
    const bad = (rbac: unknown): LoadedEntry => ({
      kinds: [],
      configs: [withPlural.config],
      rbac: rbac as LoadedEntry['rbac'],
    });
    expect(() =>
      generateFiles(args('rbac'), bad({ uses: [{ apiVersion: 'v1', plural: 'pods', verbs: ['read'] }] })),
    ).toThrow(/rbac.uses\[0\] \(pods\): unknown verb "read"/);
    expect(() =>
      generateFiles(args('rbac'), bad({ uses: [{ apiVersion: 'v1', plural: 'pods', verbs: [] }] })),
    ).toThrow(/rbac.uses\[0\] \(pods\) needs verbs/);
    expect(() => generateFiles(args('rbac'), { kinds: [], configs: [], rbac: undefined })).toThrow(
      /exports no Framework, Controller or Operator/,
    );
    expect(() => generateFiles(args('crd'), { kinds: [], configs: [], rbac: undefined })).toThrow(
      /exports no kind/,
    );
    expect(parseGenerateArgs(['rbac'])).toMatch(/give the entry module/);
    expect(parseGenerateArgs(['rbac', 'x.js', '--namespace', 'Not_A_Label'])).toMatch(/DNS label/);
    expect(parseGenerateArgs(['rbac', 'x.js', '--bogus'])).toMatch(/unknown option "--bogus"/);
  });
});

describe('reconcilekit generate on the built website example', () => {
  const deploy = join(root, 'examples/website-operator/deploy');
  // As `make manifests` runs it.
  const flags = [
    '--namespace',
    'website-operator',
    '--leader-election',
    '--image',
    'ghcr.io/reconcilekit/website-operator:0.1.0',
  ];

  it('finds the committed deploy/ (crd.yaml, rbac.yaml, chart/) up to date (regenerate with make manifests)', async () => {
    expect(existsSync(WEBSITE_MAIN), `${WEBSITE_MAIN} is missing: run make build first`).toBe(true);
    const o = io();
    const code = await runGenerateCommand(['all', WEBSITE_MAIN, '--out', deploy, ...flags, '--check'], o);
    expect(code, o.out.join('')).toBe(0);
  });

  it.each([
    ['greeting-operator', 'greeting.js', 'operator.js'],
    ['phases-operator', 'note.js', 'main.js'],
  ])(
    'finds the committed crd.yaml and rbac.yaml of %s up to date (make manifests)',
    async (example, kind, operator) => {
      const out = join(root, 'examples', example);
      const o = io();
      const crd = join(root, 'dist/examples', example, kind);
      expect(await runGenerateCommand(['crd', crd, '--out', out, '--check'], o), o.out.join('')).toBe(0);
      const entry = join(root, 'dist/examples', example, operator);
      const rbac = ['rbac', entry, '--out', out, '--namespace', example, '--check'];
      expect(await runGenerateCommand(rbac, o), o.out.join('')).toBe(0);
    },
  );

  it('finds the committed crd.yaml of greeting-controller up to date (make manifests)', async () => {
    const o = io();
    const crd = join(root, 'dist/examples/greeting-controller/greeting.js');
    const out = join(root, 'examples/greeting-controller');
    expect(await runGenerateCommand(['crd', crd, '--out', out, '--check'], o), o.out.join('')).toBe(0);
  });

  it('fails --check on a stale file, naming it', async () => {
    const copy = join(scratch, 'deploy');
    cpSync(deploy, copy, { recursive: true });
    const file = join(copy, 'rbac.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('verbs: [get, list, watch, patch]', 'verbs: [get]'),
    );
    const o = io();
    const code = await runGenerateCommand(['rbac', WEBSITE_MAIN, '--out', copy, ...flags, '--check'], o);
    expect(code).toBe(1);
    expect(o.out.join('')).toMatch(/rbac\.yaml is stale/);
  });

  it('says when the entry module is missing', async () => {
    const o = io();
    expect(await runGenerateCommand(['rbac', join(scratch, 'nope.js')], o)).toBe(1);
    expect(o.out.join('')).toMatch(/does not exist \(build your operator first\?\)/);
  });
});

describe('reconcilekit generate helm', () => {
  it('writes a chart whose templates use only values it defines, with the CRDs and the derived rules', async () => {
    const out = join(scratch, 'helm');
    const o = io();
    const code = await runGenerateCommand(
      ['all', WEBSITE_MAIN, '--out', out, '--namespace', 'website-operator', '--leader-election'],
      o,
    );
    expect(code, o.out.join('')).toBe(0);
    const chart = join(out, 'chart');
    const meta = loadAllYaml(readFileSync(join(chart, 'Chart.yaml'), 'utf8'))[0] as Record<string, unknown>;
    expect(meta).toMatchObject({ apiVersion: 'v2', name: 'website-operator', type: 'application' });
    const values = loadAllYaml(readFileSync(join(chart, 'values.yaml'), 'utf8'))[0] as Record<
      string,
      unknown
    >;
    expect(values).toMatchObject({ replicas: 2, leaderElection: true, watchNamespace: '' });
    // Every .Values path a template reads is defined in values.yaml.
    for (const t of ['deployment.yaml', 'rbac.yaml', 'serviceaccount.yaml']) {
      const text = readFileSync(join(chart, 'templates', t), 'utf8');
      for (const [, path] of text.matchAll(/\.Values\.([A-Za-z.]+)/g)) {
        const value = (path ?? '')
          .split('.')
          .reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], values);
        expect(value, `${t}: .Values.${path ?? ''}`).toBeDefined();
      }
    }
    // The rules in the chart are the rules of rbac.yaml.
    const rules = readFileSync(join(chart, 'templates/rbac.yaml'), 'utf8');
    for (const line of readFileSync(join(out, 'rbac.yaml'), 'utf8').split('\n')) {
      if (/^\s+(- apiGroups|resources|verbs):/.test(line)) expect(rules).toContain(line);
    }
    expect(renderCrds([Gadget])).toContain('kind: CustomResourceDefinition');
  });
});
