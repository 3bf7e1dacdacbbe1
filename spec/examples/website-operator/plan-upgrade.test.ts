// The Website operator's v1 → v2 resource-set upgrade, planned before it is applied (docs/plan.md): Websites
// settled under v1 are relabelled for v2; plan() lists what v2 would change, object by object, and changes
// nothing; the real run then changes exactly those objects — each child's planned "after" is what it holds.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { Framework, plan, silentLogger, type Plan, type PlannedPart } from 'reconcilekit';
import { startTestEnvironment, waitFor, type TestEnvironment } from 'reconcilekit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { examplePath } from '../../../examples/website-operator/example-path.js';
import { renderPageV2 } from '../../../examples/website-operator/render-page.js';
import { PAGE_CHECKSUM_ANNOTATION } from '../../../examples/website-operator/resources/deployment.js';
import { createWebsiteResourceSets } from '../../../examples/website-operator/resource-sets.js';
import type { Website } from '../../../examples/website-operator/website.js';

const VERSION_LABEL = 'demo.reconcilekit.io/version';
const websiteRef = { apiVersion: 'demo.reconcilekit.io/v1', kind: 'Website', plural: 'websites' };
const childRefs = {
  ConfigMap: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' },
  Deployment: { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' },
  Service: { apiVersion: 'v1', kind: 'Service', plural: 'services' },
};
const SITES = ['alpha', 'beta', 'gamma', 'delta'];
const UPGRADED = ['alpha', 'beta', 'gamma']; // delta stays on v1
const root = resolve(import.meta.dirname, '../../..');

/** `reconcilekit plan` on the built example's entry, as docs/plan.md shows it. */
function planCli(kubeconfig: string, extraEnv: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      [
        join(root, 'bin/reconcilekit.js'),
        'plan',
        join(root, 'dist/examples/website-operator/main.js'),
        '--kubeconfig',
        kubeconfig,
        '-n',
        ns,
        '-o',
        'diff',
      ],
      { env: { ...process.env, ...extraEnv }, timeout: 60_000 },
      (err, stdout, stderr) => {
        done({ code: err === null ? 0 : Number(err.code), stdout, stderr });
      },
    );
  });
}

let env: TestEnvironment;
let outputDir: string;
let ns: string;

function operator(): Framework<Website> {
  return new Framework<Website>({
    name: 'website-operator',
    kubeConfig: env.kubeConfig,
    resource: { ...websiteRef, namespace: ns },
    owns: Object.values(childRefs),
    resourceSets: createWebsiteResourceSets({ outputDir, allowDeploymentUpdates: true }),
    workers: 2,
    logger: silentLogger(),
  });
}

/** resourceVersion of every Website and child, page file contents: the state to compare. */
async function state(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const ref of [websiteRef, ...Object.values(childRefs)]) {
    for (const o of (await env.client.list({ ...ref, namespace: ns })).items) {
      out.set(`${o.kind} ${o.metadata?.name}`, o.metadata?.resourceVersion ?? '');
    }
  }
  for (const name of SITES) {
    out.set(`page-file ${name}`, await readFile(join(outputDir, ns, `${name}.html`), 'utf8'));
  }
  return out;
}

/** Every Website reconciled for its generation and its ConfigMap holding the page its version renders. */
async function settled(v2: readonly string[]): Promise<boolean> {
  for (const name of SITES) {
    const site = await env.client.get<Website>({ ...websiteRef, namespace: ns, name });
    if (site.status?.observedGeneration !== site.metadata.generation) return false;
    const cm = await env.client
      .get<V1ConfigMap>({ ...childRefs.ConfigMap, namespace: ns, name: `${name}-page` })
      .catch(() => undefined);
    const page = cm?.data?.['index.html'];
    if (page === undefined || page.includes('resource set v2') !== v2.includes(name)) return false;
  }
  return true;
}

async function runUntilSettled(v2: readonly string[]): Promise<void> {
  const fw = operator();
  await fw.start();
  try {
    await waitFor(() => settled(v2), { timeoutMs: 30_000, description: 'Websites settled' });
  } finally {
    await fw.stop();
  }
}

beforeAll(async () => {
  env = await startTestEnvironment({ crds: [examplePath('deploy', 'crd.yaml')] });
  outputDir = await mkdtemp(join(tmpdir(), 'website-plan-'));
  ns = await env.createNamespace('upgrade');
  for (const name of SITES) {
    await env.client.create<Website>({
      ...websiteRef,
      metadata: { name, namespace: ns },
      spec: { title: `Site ${name}`, content: `About ${name}.\n\nMore about ${name}.` },
    });
  }
  await runUntilSettled([]);
}, 60_000);

afterAll(async () => {
  await env.close();
  await rm(outputDir, { recursive: true, force: true });
});

function partsByObject(result: Plan): Map<string, Map<string, PlannedPart[]>> {
  const out = new Map<string, Map<string, PlannedPart[]>>();
  for (const o of result.objects) {
    out.set(o.name, new Map(o.resources.map((r) => [r.resource, r.parts])));
  }
  return out;
}

describe('plan: the Website operator v1 → v2 upgrade', () => {
  it('lists exactly the changes applying v2 then makes, object by object, and changes nothing itself', async () => {
    // The upgrade: three Websites move to resource set v2 (the operator is not running).
    for (const name of UPGRADED) {
      await env.client.patch(
        { ...websiteRef, namespace: ns, name },
        { metadata: { labels: { [VERSION_LABEL]: '2' } } },
        'merge',
      );
    }
    const before = await state();
    const result = await plan(operator());
    expect(await state()).toEqual(before);
    expect(result.errors).toBe(0);

    const planned = partsByObject(result);
    for (const name of SITES) {
      const resources = planned.get(name);
      const changed = [...(resources ?? [])]
        .filter(([, parts]) => parts.length > 0)
        .map(([resource, parts]) => `${resource}:${parts.map((p) => p.part).join('+')}`);
      if (UPGRADED.includes(name)) {
        // v2 re-renders the page (ConfigMap, page file), rolls the pods (checksum on the Deployment's pod
        // template) and relabels every child with its version (the Service too); the Website's status is
        // unchanged (a label is no new generation).
        expect({ name, changed }).toEqual({
          name,
          changed: ['configmap:update', 'deployment:update', 'service:update', 'page-file:update'],
        });
        expect(planned.get(name)?.get('service')?.[0]?.diff).toEqual([
          { path: `metadata.labels.${VERSION_LABEL}`, before: '1', after: '2' },
        ]);
        expect(result.objects.find((o) => o.name === name)?.resourceSet).toBe(1);
      } else {
        expect({ name, changed }).toEqual({ name, changed: [] });
        expect(result.objects.find((o) => o.name === name)?.resourceSet).toBe(0);
      }
    }
    expect(result.changes).toBe(UPGRADED.length * 4);
    const alphaPage = planned.get('alpha')?.get('configmap')?.[0];
    expect(alphaPage?.diff?.map((d) => d.path)).toEqual([
      'data.index.html',
      `metadata.labels.${VERSION_LABEL}`,
    ]);

    // The same plan from the command line, against the built example's entry (it exports its Framework).
    const kubeconfig = join(outputDir, 'kubeconfig');
    await writeFile(kubeconfig, env.kubeconfigYaml);
    const cli = await planCli(kubeconfig, {
      WEBSITE_OUTPUT_DIR: outputDir,
      WEBSITE_ALLOW_DEPLOYMENT_UPDATES: 'true',
      LOG_LEVEL: 'error',
    });
    if (process.env.SHOW_PLAN === '1') console.log(cli.stdout);
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(2);
    expect(cli.stdout).toContain(`# ${ns}/alpha (resource set 1)`);
    expect(cli.stdout).not.toContain(`# ${ns}/delta`);
    expect(cli.stdout).toContain('+++ configmap (planned update)');
    expect(cli.stdout).toMatch(/^\+\s+<footer>rendered by website-operator, resource set v2<\/footer>$/m);
    expect(cli.stdout).toContain(`Plan: ${UPGRADED.length * 4} change(s) over 4 object(s), 0 with errors.`);
    expect(await state()).toEqual(before);

    // Apply v2 for real.
    await runUntilSettled(UPGRADED);
    const after = await state();

    // Object by object: what changed is what was planned (status → the Website's own resourceVersion).
    const resourceOf: Record<string, string> = {
      ConfigMap: 'configmap',
      Deployment: 'deployment',
      Service: 'service',
      'page-file': 'page-file',
      Website: 'status',
    };
    for (const key of before.keys()) {
      const [kind = '', objectName = ''] = key.split(' ');
      const site = SITES.find((s) => objectName === s || objectName === `${s}-page`) ?? '';
      const wasPlanned = (planned.get(site)?.get(resourceOf[kind] ?? '')?.length ?? 0) > 0;
      expect({ key, changed: before.get(key) !== after.get(key) }).toEqual({ key, changed: wasPlanned });
    }
    // And the planned "after" is what the objects now hold.
    for (const name of UPGRADED) {
      const site = await env.client.get<Website>({ ...websiteRef, namespace: ns, name });
      const cm = await env.client.get<V1ConfigMap>({
        ...childRefs.ConfigMap,
        namespace: ns,
        name: `${name}-page`,
      });
      const cmPart = planned.get(name)?.get('configmap')?.[0];
      expect((cmPart?.change as V1ConfigMap | undefined)?.data).toEqual(cm.data);
      expect(cm.data?.['index.html']).toBe(renderPageV2(site));
      const deployment = await env.client.get<V1Deployment>({
        ...childRefs.Deployment,
        namespace: ns,
        name,
      });
      const depPart = planned.get(name)?.get('deployment')?.[0];
      const checksum = depPart?.diff?.find((d) => d.path.endsWith(PAGE_CHECKSUM_ANNOTATION));
      expect(checksum?.after).toBe(
        deployment.spec?.template.metadata?.annotations?.[PAGE_CHECKSUM_ANNOTATION],
      );
      expect(planned.get(name)?.get('page-file')?.[0]?.change).toBeDefined();
      expect(await readFile(join(outputDir, ns, `${name}.html`), 'utf8')).toBe(renderPageV2(site));
    }
    // Planned again after the upgrade: nothing left to do.
    const again = await plan(operator());
    expect(again.changes).toBe(0);
    expect((await env.client.list({ ...websiteRef, namespace: ns })).items).toHaveLength(4);
  }, 90_000);
});
