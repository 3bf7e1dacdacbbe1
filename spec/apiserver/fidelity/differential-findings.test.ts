// Answers where the differential fuzzer (spec/fuzz, docs/apiserver.md) first found the embedded server
// differing from kube-apiserver v1.34, pinned one by one: pod-template defaults, Deployment validation
// beyond the schema, JSON patches that decode but do not apply, server-side apply of a custom resource
// that does not fit its structural schema, and metadata errors reported together with schema errors.
// Every expected answer is kube-apiserver's, and the file runs on both backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrd, kubeApi, removeCrd, type KubeApi } from '../support/kube-api.js';
import { startTarget, uniqueName, type Target } from '../support/target.js';

const GROUP = 'findings.reconcilekit.test';

function crd(): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `probes.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'probes', singular: 'probe', kind: 'Probe' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    size: { type: 'integer', minimum: 1 },
                    ports: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['name'],
                      items: {
                        type: 'object',
                        required: ['name'],
                        properties: { name: { type: 'string' }, port: { type: 'integer' } },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

let target: Target;
let api: KubeApi;
let namespace: string;

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
  namespace = uniqueName('findings');
  const ns = await api('POST', '/api/v1/namespaces', { metadata: { name: namespace } });
  expect(ns.status, ns.text).toBe(201);
  await installCrd(api, crd());
}, 60_000);

afterAll(async () => {
  await removeCrd(api, `probes.${GROUP}`);
  await api('DELETE', `/api/v1/namespaces/${namespace}`);
  await target.close();
});

const deployments = () => `/apis/apps/v1/namespaces/${namespace}/deployments`;
const configMaps = () => `/api/v1/namespaces/${namespace}/configmaps`;
const probes = () => `/apis/${GROUP}/v1/namespaces/${namespace}/probes`;

function deployment(name: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      },
    },
  };
}

describe('a Deployment’s pod template', () => {
  it('gets the template defaults but not the Pod-only enableServiceLinks', async () => {
    const name = uniqueName('d');
    const created = await api('POST', deployments(), deployment(name));
    expect(created.status, created.text).toBe(201);
    const spec = created.body.spec.template.spec;
    expect(spec).not.toHaveProperty('enableServiceLinks');
    expect(spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
    });
    const read = await api('GET', `${deployments()}/${name}`);
    expect(read.body.spec.template.spec).not.toHaveProperty('enableServiceLinks');
  });
});

describe('Deployment validation beyond the schema', () => {
  it('refuses a merge patch setting spec.replicas to -1 with 422 FieldValueInvalid on spec.replicas', async () => {
    const name = uniqueName('d');
    expect((await api('POST', deployments(), deployment(name))).status).toBe(201);
    const r = await api(
      'PATCH',
      `${deployments()}/${name}`,
      { spec: { replicas: -1 } },
      'application/merge-patch+json',
    );
    expect(r.status, r.text).toBe(422);
    expect(r.body).toMatchObject({
      reason: 'Invalid',
      message: `Deployment.apps "${name}" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
      details: {
        name,
        group: 'apps',
        kind: 'Deployment',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: -1: must be greater than or equal to 0',
            field: 'spec.replicas',
          },
        ],
      },
    });
  });
});

describe('a JSON patch that decodes but does not apply', () => {
  let name: string;
  beforeAll(async () => {
    name = uniqueName('cm');
    const r = await api('POST', configMaps(), { metadata: { name }, data: { a: '1' } });
    expect(r.status, r.text).toBe(201);
  });
  const jsonPatch = (ops: unknown) =>
    api('PATCH', `${configMaps()}/${name}`, ops, 'application/json-patch+json');

  it('is 422 for a failing test operation', async () => {
    const r = await jsonPatch([{ op: 'test', path: '/data/a', value: '2' }]);
    expect(r.status, r.text).toBe(422);
    expect(r.body.reason).toBe('Invalid');
  });

  it('is 422 for a remove of a missing path', async () => {
    const r = await jsonPatch([{ op: 'remove', path: '/data/missing' }]);
    expect(r.status, r.text).toBe(422);
    expect(r.body.reason).toBe('Invalid');
  });

  it('is 400 when the patch itself does not decode', async () => {
    const r = await jsonPatch({ op: 'remove', path: '/data/a' });
    expect(r.status, r.text).toBe(400);
    expect(r.body.reason).toBe('BadRequest');
  });

  it('leaves the object as it was', async () => {
    const r = await api('GET', `${configMaps()}/${name}`);
    expect(r.body.data).toEqual({ a: '1' });
  });
});

describe('server-side apply of a custom resource that does not fit its structural schema', () => {
  it('is a 500 from the typed conversion for a list-map item without its key', async () => {
    const name = uniqueName('p');
    const r = await api(
      'PATCH',
      `${probes()}/${name}?fieldManager=fuzz`,
      {
        apiVersion: `${GROUP}/v1`,
        kind: 'Probe',
        metadata: { name, namespace },
        spec: { ports: [{ port: 80 }] },
      },
      'application/apply-patch+yaml',
    );
    expect(r.status, r.text).toBe(500);
    // structured-merge-diff's error goes out as it is: a Failure without a reason.
    expect(r.body).toMatchObject({ kind: 'Status', status: 'Failure', code: 500 });
    expect(r.body.reason).toBeUndefined();
    expect(r.body.message).toMatch(
      new RegExp(
        `^failed to create typed patch object \\(${namespace}/${name}; ${GROUP}/v1, Kind=Probe\\): `,
      ),
    );
    expect((await api('GET', `${probes()}/${name}`)).status).toBe(404);
  });
});

describe('creating a custom resource with an invalid name and schema errors', () => {
  it('reports metadata.name and the schema causes in one 422', async () => {
    const r = await api('POST', probes(), {
      apiVersion: `${GROUP}/v1`,
      kind: 'Probe',
      metadata: { name: 'Bad_Name' },
      spec: { size: 0 },
    });
    expect(r.status, r.text).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    const fields = (r.body.details.causes as { field: string }[]).map((c) => c.field);
    expect(fields).toEqual(['metadata.name', 'spec.size']);
  });
});

describe('server-side apply and the other managers', () => {
  const probe = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: `${GROUP}/v1`,
    kind: 'Probe',
    metadata: { name },
    spec,
  });
  const apply = (name: string, manager: string, spec: Record<string, unknown>) =>
    api(
      'PATCH',
      `${probes()}/${name}?fieldManager=${manager}`,
      probe(name, spec),
      'application/apply-patch+yaml',
    );
  const managers = (body: any): string[] =>
    ((body.metadata.managedFields ?? []) as { manager: string }[]).map((e) => e.manager);

  it('gives an object nobody manages to before-first-apply, whose fields an apply then conflicts on', async () => {
    const name = uniqueName('p');
    expect((await api('POST', `${probes()}?fieldManager=creator`, probe(name, { size: 2 }))).status).toBe(
      201,
    );
    const cleared = await api(
      'PATCH',
      `${probes()}/${name}`,
      { metadata: { managedFields: [{}] } },
      'application/merge-patch+json',
    );
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.metadata.managedFields).toBeUndefined();
    const r = await apply(name, 'fuzz-a', { size: 3 });
    expect(r.status, r.text).toBe(409);
    expect(r.body.message).toBe(
      `Apply failed with 1 conflict: conflict with "before-first-apply" using ${GROUP}/v1: .spec.size`,
    );
    const forced = await api(
      'PATCH',
      `${probes()}/${name}?fieldManager=fuzz-a&force=true`,
      probe(name, { size: 3 }),
      'application/apply-patch+yaml',
    );
    expect(forced.status, forced.text).toBe(200);
    expect(managers(forced.body).sort()).toEqual(['before-first-apply', 'fuzz-a']);
  });

  it('takes the fields an apply removes from the object away from other managers', async () => {
    const name = uniqueName('p');
    const first = await apply(name, 'fuzz-a', {
      ports: [
        { name: 'a', port: 1 },
        { name: 'b', port: 2 },
      ],
    });
    expect(first.status, first.text).toBe(201);
    const put = await api('PUT', `${probes()}/${name}?fieldManager=other`, {
      ...first.body,
      spec: {
        ports: [
          { name: 'a', port: 5 },
          { name: 'b', port: 2 },
        ],
      },
    });
    expect(put.status, put.text).toBe(200);
    expect(managers(put.body).sort()).toEqual(['fuzz-a', 'other']);
    const r = await apply(name, 'fuzz-a', { ports: [{ name: 'b', port: 2 }] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.spec.ports).toEqual([{ name: 'b', port: 2 }]);
    expect(managers(r.body)).toEqual(['fuzz-a']);
  });
});
