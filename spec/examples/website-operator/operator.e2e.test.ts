/* eslint-disable @typescript-eslint/no-unsafe-return -- client-node models are plain-data classes; object literals are how they are built. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject, V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { Framework, isNotFound, silentLogger, type ObjectRef } from 'reconcilekit';
import {
  applyManifests,
  collectEvents,
  readManifests,
  startTestEnvironment,
  waitFor,
  waitForCondition,
  type TestEnvironment,
} from 'reconcilekit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { examplePath } from '../../../examples/website-operator/example-path.js';
import { parseOperatorOptions } from '../../../examples/website-operator/operator-options.js';
import { renderPageV1, renderPageV2 } from '../../../examples/website-operator/render-page.js';
import { createWebsiteResourceSets } from '../../../examples/website-operator/resource-sets.js';
import type { Website } from '../../../examples/website-operator/website.js';

const FINALIZER = 'reconcilekit.io/website-operator';

describe('Website operator end to end on the embedded API server', () => {
  let env: TestEnvironment;
  let outputDir: string;
  let namespace: string | undefined;
  let operator: Framework<Website> | undefined;

  beforeAll(async () => {
    env = await startTestEnvironment({ crds: [examplePath('deploy', 'crd.yaml')] });
    outputDir = await mkdtemp(join(tmpdir(), 'website-e2e-'));
  });

  afterEach(async () => {
    await operator?.stop();
    operator = undefined;
  });

  afterAll(async () => {
    await env.close();
    await rm(outputDir, { recursive: true, force: true });
  });

  async function startOperator(allowDeploymentUpdates = false): Promise<void> {
    namespace ??= await env.createNamespace('sites');
    operator = new Framework<Website>({
      name: 'website-operator',
      kubeConfig: env.kubeConfig,
      resource: { apiVersion: 'demo.reconcilekit.io/v1', kind: 'Website', plural: 'websites', namespace },
      owns: [
        { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' },
        { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' },
        { apiVersion: 'v1', kind: 'Service', plural: 'services' },
      ],
      resourceSets: createWebsiteResourceSets({ outputDir, allowDeploymentUpdates }),
      workers: 2,
      logger: silentLogger(),
    });
    await operator.start();
  }

  const site = (name: string): ObjectRef => ({
    apiVersion: 'demo.reconcilekit.io/v1',
    kind: 'Website',
    plural: 'websites',
    namespace,
    name,
  });
  const child = (kind: 'ConfigMap' | 'Deployment' | 'Service', name: string): ObjectRef => ({
    apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
    kind,
    plural: `${kind.toLowerCase()}s`,
    namespace,
    name,
  });
  const pagePath = (name: string): string => join(outputDir, String(namespace), `${name}.html`);

  async function createWebsite(name: string, spec: Website['spec'], version?: string): Promise<Website> {
    const labels: Record<string, string> =
      version === undefined ? {} : { 'demo.reconcilekit.io/version': version };
    return env.client.create<Website>({
      apiVersion: 'demo.reconcilekit.io/v1',
      kind: 'Website',
      metadata: { name, namespace, labels },
      spec,
    });
  }

  async function gone(ref: ObjectRef): Promise<boolean> {
    try {
      await env.client.get(ref);
      return false;
    } catch (e) {
      if (isNotFound(e)) return true;
      throw e;
    }
  }

  it('creates ConfigMap, Deployment, Service, page file, finalizer and Ready status for a Website (version 1 by default)', async () => {
    await startOperator();
    await createWebsite('hello', { title: 'Hello', content: 'First page.' });
    const ready = await waitForCondition<Website>(env.client, site('hello'), 'Ready');
    expect(ready.metadata.finalizers).toContain(FINALIZER);
    expect(ready.status?.url).toBe(`http://hello.${namespace}.svc.cluster.local`);
    expect(ready.spec.replicas).toBe(1); // defaulted by the CRD schema
    const configMap = await env.client.get<V1ConfigMap>(child('ConfigMap', 'hello-page'));
    expect(configMap.data?.['index.html']).toBe(renderPageV1(ready));
    expect(configMap.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Website',
      uid: ready.metadata.uid,
    });
    const deployment = await env.client.get<V1Deployment>(child('Deployment', 'hello'));
    expect(deployment.spec?.replicas).toBe(1);
    expect(deployment.metadata?.labels?.['demo.reconcilekit.io/website']).toBe('hello');
    await env.client.get(child('Service', 'hello'));
    expect(await readFile(pagePath('hello'), 'utf8')).toBe(renderPageV1(ready));
  });

  it('routes a Website labelled version 2 to the second resource set, which renders its own page', async () => {
    await startOperator();
    await createWebsite('guide', { title: 'Guide', content: 'One.\n\nTwo.' }, '2');
    const ready = await waitForCondition<Website>(env.client, site('guide'), 'Ready');
    const configMap = await env.client.get<V1ConfigMap>(child('ConfigMap', 'guide-page'));
    expect(configMap.data?.['index.html']).toBe(renderPageV2(ready));
    expect(configMap.data?.['index.html']).toContain('resource set v2');
    expect(await readFile(pagePath('guide'), 'utf8')).toBe(renderPageV2(ready));
  });

  it('leaves a Website with an unknown version alone: no finalizer, no children', async () => {
    await startOperator();
    await createWebsite('future', { title: 'Future', content: 'x' }, '9');
    await createWebsite('marker', { title: 'Marker', content: 'x' });
    await waitForCondition(env.client, site('marker'), 'Ready');
    const future = await env.client.get<Website>(site('future'));
    expect(future.metadata.finalizers ?? []).toEqual([]);
    expect(future.status).toBeUndefined();
    expect(await gone(child('ConfigMap', 'future-page'))).toBe(true);
  });

  it('applies version 1 updates to the ConfigMap, the Deployment and the file', async () => {
    await startOperator();
    await createWebsite('news', { title: 'News', content: 'old' });
    await waitForCondition(env.client, site('news'), 'Ready');
    await env.client.patch(site('news'), { spec: { content: 'new', replicas: 3 } }, 'merge');
    const updated = await waitForCondition<Website>(env.client, site('news'), 'Ready');
    expect(updated.status?.observedGeneration).toBe(2);
    const deployment = await env.client.get<V1Deployment>(child('Deployment', 'news'));
    expect(deployment.spec?.replicas).toBe(3);
    const configMap = await env.client.get<V1ConfigMap>(child('ConfigMap', 'news-page'));
    expect(configMap.data?.['index.html']).toContain('<p>new</p>');
    expect(await readFile(pagePath('news'), 'utf8')).toContain('<p>new</p>');
  });

  it('holds version 2 Deployment updates back until the operator allows them, and says so in the status', async () => {
    await startOperator(false);
    await createWebsite('shop', { title: 'Shop', content: 'v', replicas: 1 }, '2');
    await waitForCondition(env.client, site('shop'), 'Ready');
    await env.client.patch(site('shop'), { spec: { content: 'sale', replicas: 4 } }, 'merge');
    const held = await waitForCondition<Website>(env.client, site('shop'), 'Ready', { status: 'False' });
    expect(held.status?.conditions?.[0]?.reason).toBe('UpdatesHeldBack');
    expect((await env.client.get<V1Deployment>(child('Deployment', 'shop'))).spec?.replicas).toBe(1);
    // Creates and other resources are not gated: the page moved on.
    expect(await readFile(pagePath('shop'), 'utf8')).toContain('<p>sale</p>');
    await operator?.stop();
    await startOperator(true);
    await waitForCondition(env.client, site('shop'), 'Ready');
    expect((await env.client.get<V1Deployment>(child('Deployment', 'shop'))).spec?.replicas).toBe(4);
  });

  it('recreates a child deleted behind its back (owned objects wake the owner)', async () => {
    await startOperator();
    await createWebsite('sturdy', { title: 'Sturdy', content: 'x' });
    await waitForCondition(env.client, site('sturdy'), 'Ready');
    const before = await env.client.get<V1ConfigMap>(child('ConfigMap', 'sturdy-page'));
    await env.client.delete(child('ConfigMap', 'sturdy-page'));
    const after = await waitFor(async () => env.client.get<V1ConfigMap>(child('ConfigMap', 'sturdy-page')), {
      description: 'ConfigMap sturdy-page recreated',
    });
    expect(after.metadata?.uid).not.toBe(before.metadata?.uid);
  });

  it('reports a failing API call as a Warning Event on the Website and recovers once it passes', async () => {
    await startOperator();
    // More failures than the retry wrapper's three attempts: the reconcile fails once, then succeeds.
    const fault = env.apiServer?.faults.inject({
      verb: 'create',
      resource: 'services',
      namespace,
      status: 500,
      times: 4,
    });
    const events = await collectEvents(env.client, {
      namespace,
      involvedObject: { kind: 'Website', name: 'flaky' },
    });
    try {
      await createWebsite('flaky', { title: 'Flaky', content: 'x' });
      const warning = await events.waitFor((e) => e.type === 'Warning');
      expect(warning.message).toContain('services');
      await waitForCondition(env.client, site('flaky'), 'Ready', { timeoutMs: 20_000 });
    } finally {
      fault?.remove();
      await events.stop();
    }
  });

  it('on delete removes every child and the file, then the finalizer, so the Website goes away', async () => {
    await startOperator();
    await createWebsite('bye', { title: 'Bye', content: 'x' }, '2');
    await waitForCondition(env.client, site('bye'), 'Ready');
    await env.client.delete(site('bye'));
    await waitFor(() => gone(site('bye')), { description: 'Website bye gone' });
    for (const ref of [child('ConfigMap', 'bye-page'), child('Deployment', 'bye'), child('Service', 'bye')]) {
      expect(await gone(ref)).toBe(true);
    }
    await expect(readFile(pagePath('bye'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('accepts every object of deploy/ on the API server, and the pieces fit together', async () => {
    const objects: KubernetesObject[] = [];
    for (const file of ['namespace.yaml', 'crd.yaml', 'rbac.yaml', 'operator.yaml']) {
      objects.push(...(await readManifests(examplePath('deploy', file))));
    }
    const kinds = objects.map((o) => o.kind);
    expect(kinds).toEqual([
      'Namespace',
      'CustomResourceDefinition',
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
      'Deployment',
    ]);
    // The server validates and stores every one of them.
    const served: KubernetesObject[] = [];
    for (const obj of objects) {
      const kind = { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '' };
      let known = true;
      try {
        await env.client.resolve(kind);
      } catch (e) {
        if (!isNotFound(e)) throw e;
        known = false;
      }
      if (known) served.push(obj);
    }
    expect(served.map((o) => o.kind)).toEqual(kinds);
    const stored = await applyManifests(env.client, served);
    expect(stored.map((o) => o.metadata?.uid).every((uid) => typeof uid === 'string')).toBe(true);

    // The pieces reference each other correctly.
    const byKind = (kind: string) => objects.filter((o) => o.kind === kind) as any[];
    const account = byKind('ServiceAccount')[0];
    for (const binding of [...byKind('ClusterRoleBinding'), ...byKind('RoleBinding')]) {
      const roleKind = binding.roleRef.kind as string;
      expect(byKind(roleKind).map((r) => r.metadata.name)).toContain(binding.roleRef.name);
      expect(binding.subjects).toEqual([
        { kind: 'ServiceAccount', name: account.metadata.name, namespace: account.metadata.namespace },
      ]);
    }
    const deployment = byKind('Deployment')[0];
    const pod = deployment.spec.template.spec;
    expect(deployment.spec.replicas).toBe(2);
    expect(pod.serviceAccountName).toBe(account.metadata.name);
    const container = pod.containers[0];
    const options = parseOperatorOptions(container.args, {
      POD_NAMESPACE: deployment.metadata.namespace,
      POD_NAME: 'website-operator-abc',
    });
    expect(options.leaderElectionNamespace).toBe(byKind('Role')[0].metadata.namespace);
    expect(options.health).toEqual({ host: '0.0.0.0', port: container.ports[0].containerPort });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: container.ports[0].name });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: container.ports[0].name });
    expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    expect(pod.securityContext.runAsNonRoot).toBe(true);
  });
});
