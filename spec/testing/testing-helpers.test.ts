import { CoreV1Api, type KubernetesObject } from '@kubernetes/client-node';
import { isNotFound } from 'reconcilekit';
import {
  collectEvents,
  isWaitTimeout,
  parseManifests,
  ManifestParseError,
  applyManifests,
  startTestEnvironment,
  waitFor,
  waitForCondition,
  type TestEnvironment,
} from 'reconcilekit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.testing.reconcilekit.io' },
  spec: {
    group: 'testing.reconcilekit.io',
    scope: 'Namespaced',
    names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

const GADGET = { apiVersion: 'testing.reconcilekit.io/v1', kind: 'Gadget', plural: 'gadgets' };

describe('reconcilekit/testing on the embedded API server', () => {
  let env: TestEnvironment;

  beforeAll(async () => {
    env = await startTestEnvironment({ crds: [gadgetCrd] });
  });

  afterAll(async () => {
    await env.close();
  });

  it('starts an embedded server with the CRD established and a KubeConfig client-node can use', async () => {
    expect(env.embedded).toBe(true);
    expect(env.apiServer?.url).toBe(env.url);
    expect(env.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/); // TLS by default
    expect(env.backend).toBe('embedded');
    expect(env.kubeConfig.getCurrentCluster()?.caData).toBeTruthy();
    const namespace = await env.createNamespace('env');
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const ns = await core.readNamespace({ name: namespace });
    expect(ns.metadata?.name).toBe(namespace);
    const gadget = await env.client.create({
      ...GADGET,
      metadata: { name: 'g1', namespace },
      spec: { size: 3 },
    } as KubernetesObject);
    expect(gadget.metadata?.uid).toBeTruthy();
  });

  it('waits for a status condition of the current generation', async () => {
    const namespace = await env.createNamespace('cond');
    const ref = { ...GADGET, namespace, name: 'g2' };
    await env.client.create({ ...GADGET, metadata: { name: 'g2', namespace }, spec: {} } as KubernetesObject);
    const waiting = waitForCondition(env.client, ref, 'Ready', { timeoutMs: 5_000 });
    // A condition for an older generation does not count; the one for generation 1 does.
    await env.client.patch(
      ref,
      { status: { conditions: [{ type: 'Ready', status: 'True', observedGeneration: 0 }] } },
      'merge',
      { subresource: 'status' },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await env.client.patch(
      ref,
      { status: { conditions: [{ type: 'Ready', status: 'True', observedGeneration: 1 }] } },
      'merge',
      { subresource: 'status' },
    );
    const obj = await waiting;
    expect(obj.metadata?.name).toBe('g2');
  });

  it('exposes the embedded server for fault injection', async () => {
    const fault = env.apiServer?.faults.inject({ verb: 'get', resource: 'gadgets', status: 503, times: 1 });
    const ref = { ...GADGET, namespace: 'default', name: 'nothing' };
    await expect(env.client.get(ref)).rejects.toMatchObject({ code: 503 });
    await expect(env.client.get(ref)).rejects.toMatchObject({ code: 404 });
    fault?.remove();
  });

  it('reports a timeout with what it waited for and the last error', async () => {
    const error = await waitFor(
      async () => env.client.get({ ...GADGET, namespace: 'default', name: 'never' }),
      { timeoutMs: 200, description: 'gadget never' },
    ).catch((e: unknown) => e);
    expect(isWaitTimeout(error)).toBe(true);
    expect(String(error)).toContain('gadget never');
    expect(isNotFound((error as { lastError: unknown }).lastError)).toBe(true);
  });

  it('collects existing and new Events about one object', async () => {
    const namespace = await env.createNamespace('events');
    const event = (name: string, about: string): KubernetesObject =>
      ({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: { kind: 'Gadget', name: about, namespace },
        reason: 'Tested',
        message: `event ${name}`,
        type: 'Normal',
      }) as KubernetesObject;
    await env.client.create(event('before', 'g3'));
    const collector = await collectEvents(env.client, { namespace, involvedObject: { name: 'g3' } });
    try {
      expect(collector.events.map((e) => e.metadata.name)).toEqual(['before']);
      await env.client.create(event('other', 'someone-else'));
      await env.client.create(event('after', 'g3'));
      const after = await collector.waitFor((e) => e.metadata.name === 'after', { timeoutMs: 5_000 });
      expect(after.message).toBe('event after');
      expect(collector.events.map((e) => e.metadata.name)).toEqual(['before', 'after']);
    } finally {
      await collector.stop();
    }
  });

  it('applies YAML manifests, defaulting the namespace and replacing what exists', async () => {
    const namespace = await env.createNamespace('apply');
    const yaml = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: settings}',
      'data: {mode: one}',
      '---',
      '---',
      'apiVersion: v1',
      'kind: ServiceAccount',
      'metadata: {name: robot}',
    ].join('\n');
    const objects = parseManifests(yaml);
    expect(objects).toHaveLength(2);
    const stored = await applyManifests(env.client, objects, { namespace });
    expect(stored.map((o) => o.metadata?.namespace)).toEqual([namespace, namespace]);
    const again = await applyManifests(env.client, parseManifests(yaml.replace('mode: one', 'mode: two')), {
      namespace,
    });
    expect((again[0] as unknown as { data: Record<string, string> }).data.mode).toBe('two');
  });
});

describe('parseManifests', () => {
  it('keeps manifests in wire form: x-kubernetes-* fields, schema defaults and unknown fields survive', () => {
    const [crd, second] = parseManifests(
      [
        '# leading comment',
        'apiVersion: apiextensions.k8s.io/v1',
        'kind: CustomResourceDefinition',
        'metadata: {name: things.example.com}',
        'spec:',
        '  futureField: kept',
        '  versions:',
        '    - name: v1',
        '      schema:',
        '        openAPIV3Schema:',
        '          x-kubernetes-preserve-unknown-fields: true',
        '          properties: {size: {type: integer, default: 1}}',
        '--- # second',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: text}',
        'data:',
        '  page: |',
        '    line one',
        '    ---',
        '    line three',
      ].join('\n'),
    ) as any[];
    const schema = crd.spec.versions[0].schema.openAPIV3Schema;
    expect(schema['x-kubernetes-preserve-unknown-fields']).toBe(true);
    expect(schema.properties.size.default).toBe(1);
    expect(crd.spec.futureField).toBe('kept');
    expect(second.data.page).toBe('line one\n---\nline three\n');
  });

  it('reads valid multi-document YAML a line-based splitter breaks: content after ---, directives, ... ends', () => {
    const objects = parseManifests(
      [
        '%YAML 1.2',
        '--- {apiVersion: v1, kind: ConfigMap, metadata: {name: one}}',
        '...',
        '--- !!map',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: two}',
        'data:',
        '  base: &base {a: "1"}',
        '---',
        '---',
        '# only a comment',
        '---',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: three}',
        'data:',
        '  <<: {b: "2"}',
        '  text: "---"',
      ].join('\n'),
    ) as any[];
    expect(objects.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual([
      'one',
      'two',
      'three',
    ]);
    expect(objects[2].data).toEqual({ b: '2', text: '---' });
  });

  it('refuses bad documents with a ManifestParseError naming the document and line', () => {
    const bad = (text: string): ManifestParseError => {
      try {
        parseManifests(text);
      } catch (e) {
        if (e instanceof ManifestParseError) return e;
        throw e;
      }
      throw new Error('parseManifests accepted it');
    };
    const syntax = bad('apiVersion: v1\nkind: ConfigMap\n---\nmetadata: {name: [unclosed\n');
    expect(syntax.document).toBe(2);
    expect(syntax.message).toMatch(/^manifest document 2 is not valid YAML: .*\(line \d+, column \d+\)$/);
    const scalar = bad('apiVersion: v1\n---\njust text\n');
    expect(scalar.message).toContain('manifest document 2 is the string "just text", not an object');
    expect(bad('- a\n- b\n').message).toContain('is a list, not an object');
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++)
      bomb.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(', ')}]`,
      );
    expect(bad(bomb.join('\n')).message).toMatch(/cannot be read: .*aliases expand past 1000/);
  });
});
