// Built-in kinds: values that do not fit the Go types. kube-apiserver decodes a JSON body with
// encoding/json (k8s.io/apimachinery/pkg/runtime/serializer/json; the 400 text from
// k8s.io/apiserver/pkg/endpoints/handlers/rest.go), a JSON or merge patch's result the same way and a
// strategic merge patch's result with runtime.DefaultUnstructuredConverter (both a 422 on `patch`:
// k8s.io/apiserver/pkg/endpoints/handlers/patch.go). Every expected text below is kube-apiserver v1.34.4's,
// and the file runs on both backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeApi, type KubeApi } from '../support/kube-api.js';
import { startTarget, uniqueName, type Target } from '../support/target.js';

let target: Target;
let api: KubeApi;
let namespace: string;

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
  namespace = uniqueName('decode');
  const ns = await api('POST', '/api/v1/namespaces', { metadata: { name: namespace } });
  expect(ns.status, ns.text).toBe(201);
}, 30_000);

afterAll(async () => {
  await api('DELETE', `/api/v1/namespaces/${namespace}`);
  await target.close();
});

const deployments = () => `/apis/apps/v1/namespaces/${namespace}/deployments`;
const core = (resource: string) => `/api/v1/namespaces/${namespace}/${resource}`;

function deployment(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: uniqueName('d'), ...metadata },
    spec: {
      selector: { matchLabels: { app: 'x' } },
      template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      ...spec,
    },
  };
}

const podSpec = (container: Record<string, unknown>) => ({
  template: {
    metadata: { labels: { app: 'x' } },
    spec: { containers: [{ name: 'c', image: 'nginx', ...container }] },
  },
});

const DEPLOYMENT = 'Deployment in version "v1" cannot be handled as a Deployment: ';

describe('a JSON body that does not fit the Go types: 400 BadRequest with the decoder’s text', () => {
  const cases: [string, () => [string, unknown], string][] = [
    [
      'a string for an int32',
      () => [deployments(), deployment({ replicas: '3' })],
      `${DEPLOYMENT}json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`,
    ],
    [
      'a fraction for an int32',
      () => [deployments(), deployment({ replicas: 3.5 })],
      `${DEPLOYMENT}json: cannot unmarshal number 3.5 into Go struct field DeploymentSpec.spec.replicas of type int32`,
    ],
    [
      'a number out of int32 range',
      () => [deployments(), deployment({ replicas: 1e12 })],
      `${DEPLOYMENT}json: cannot unmarshal number 1000000000000 into Go struct field DeploymentSpec.spec.replicas of type int32`,
    ],
    [
      'a bool for an int32',
      () => [deployments(), deployment({ replicas: true })],
      `${DEPLOYMENT}json: cannot unmarshal bool into Go struct field DeploymentSpec.spec.replicas of type int32`,
    ],
    [
      'an object for a list',
      () => [deployments(), deployment({ template: { spec: { containers: { name: 'c' } } } })],
      `${DEPLOYMENT}json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container`,
    ],
    [
      'a list for a struct',
      () => [deployments(), deployment({ selector: [] })],
      `${DEPLOYMENT}json: cannot unmarshal array into Go struct field DeploymentSpec.spec.selector of type v1.LabelSelector`,
    ],
    [
      'a number for a string inside a list item',
      () => [deployments(), deployment(podSpec({ image: 5 }))],
      `${DEPLOYMENT}json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image of type string`,
    ],
    [
      'a number for a label value',
      () => [deployments(), deployment({}, { labels: { tier: 1 } })],
      `${DEPLOYMENT}json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string`,
    ],
    [
      'a string for metadata',
      () => [deployments(), { apiVersion: 'apps/v1', kind: 'Deployment', metadata: 'x' }],
      `${DEPLOYMENT}json: cannot unmarshal string into Go struct field Deployment.metadata of type v1.ObjectMeta`,
    ],
    [
      'the first of two mismatches in document order',
      () => [deployments(), deployment({ replicas: '3', paused: 'yes' })],
      `${DEPLOYMENT}json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`,
    ],
    [
      'a type error before an unknown field under fieldValidation=Strict',
      () => [`${deployments()}?fieldValidation=Strict`, deployment({ replicas: '3', bogus: 1 })],
      `${DEPLOYMENT}json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`,
    ],
    [
      'a number in ConfigMap data',
      () => [
        core('configmaps'),
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('cm') }, data: { a: 1 } },
      ],
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    ],
    [
      'a list for ConfigMap data',
      () => [
        core('configmaps'),
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('cm') }, data: [] },
      ],
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string',
    ],
    [
      'a string for a Service port',
      () => [
        core('services'),
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: uniqueName('s') },
          spec: { ports: [{ port: '80' }] },
        },
      ],
      'Service in version "v1" cannot be handled as a Service: json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32',
    ],
    [
      'a bool for an int-or-string targetPort',
      () => [
        core('services'),
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: uniqueName('s') },
          spec: { ports: [{ port: 80, targetPort: true }] },
        },
      ],
      'Service in version "v1" cannot be handled as a Service: json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32',
    ],
    [
      'a bool for a quantity',
      () => [
        core('pods'),
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: uniqueName('p') },
          spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: true } } }] },
        },
      ],
      'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
    ],
    [
      'a number for a timestamp',
      () => [
        core('pods'),
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: uniqueName('p'), creationTimestamp: 5 },
          spec: { containers: [{ name: 'c', image: 'i' }] },
        },
      ],
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string',
    ],
  ];
  for (const [title, make, message] of cases) {
    it(`POST: ${title}`, async () => {
      const [path, body] = make();
      const r = await api('POST', path, body);
      expect(r.status, r.text).toBe(400);
      expect(r.body).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'BadRequest',
        code: 400,
        message,
      });
    });
  }

  it('PUT: the same check on an update', async () => {
    const created = await api('POST', deployments(), deployment({ replicas: 1 }));
    expect(created.status, created.text).toBe(201);
    const body = created.body as Record<string, any>;
    const r = await api('PUT', `${deployments()}/${body.metadata.name}`, {
      ...body,
      spec: { ...body.spec, replicas: '3' },
    });
    expect(r.status, r.text).toBe(400);
    expect((r.body as Record<string, any>).message).toBe(
      `${DEPLOYMENT}json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`,
    );
  });

  it('bad input: a ~2.5 MiB Deployment with the mismatch at its end answers 400 in bounded time', async () => {
    const env = Array.from({ length: 20_000 }, (_, i) => ({ name: `VAR_${i}`, value: 'x'.repeat(100) }));
    const body = deployment(podSpec({ env, ports: [{ containerPort: 'eighty' }] }));
    const started = Date.now();
    const r = await api('POST', deployments(), body);
    expect(r.status, r.text.slice(0, 300)).toBe(400);
    expect((r.body as Record<string, any>).message).toContain(
      'cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
    );
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe('bad input: big valid objects in bounded time', () => {
  it('creates a ~1.3 MiB Deployment and strategically patches its 10,000-item env', async () => {
    // Before the managedFields lookups were indexed this patch took over 30 s (O(n²) over the env items).
    // Kept under etcd's request limit (~2 MiB encoded), past which kube-apiserver answers 500.
    const env = Array.from({ length: 10_000 }, (_, i) => ({ name: `VAR_${i}`, value: 'x'.repeat(100) }));
    const body = deployment(podSpec({ env }));
    let started = Date.now();
    const created = await api('POST', deployments(), body);
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    expect(Date.now() - started).toBeLessThan(20_000);
    const name = (created.body as Record<string, any>).metadata.name as string;
    started = Date.now();
    const patched = await api(
      'PATCH',
      `${deployments()}/${name}`,
      { spec: { template: { spec: { containers: [{ name: 'c', env: [{ name: 'NEW', value: 'v' }] }] } } } },
      'application/strategic-merge-patch+json',
    );
    expect(patched.status, patched.text.slice(0, 300)).toBe(200);
    expect(Date.now() - started).toBeLessThan(20_000);
    const names = (
      (patched.body as Record<string, any>).spec.template.spec.containers[0].env as { name: string }[]
    ).map((e) => e.name);
    expect(names).toHaveLength(10_001);
    expect(names[0]).toBe('NEW'); // a new item goes before the server's (normalizeElementOrder)
  }, 60_000);
});

describe('a patch whose result does not fit the Go types: 422 on the field patch', () => {
  async function created(): Promise<string> {
    const r = await api('POST', deployments(), deployment({ replicas: 1 }));
    expect(r.status, r.text).toBe(201);
    return (r.body as Record<string, any>).metadata.name as string;
  }

  function expectPatchInvalid(
    r: { status: number; text: string; body: unknown },
    value: string | RegExp,
    error: string,
  ) {
    expect(r.status, r.text).toBe(422);
    const body = r.body as Record<string, any>;
    expect(body.reason).toBe('Invalid');
    expect(body.details.name).toBeUndefined();
    expect(body.details.kind).toBeUndefined();
    expect(body.details.causes).toHaveLength(1);
    const cause = body.details.causes[0];
    expect(cause.reason).toBe('FieldValueInvalid');
    expect(cause.field).toBe('patch');
    expect(body.message).toBe(` "" is invalid: patch: ${cause.message}`);
    const match = /^Invalid value: (".*"): (.*)$/s.exec(cause.message as string);
    expect(match, cause.message).not.toBeNull();
    const shown = JSON.parse(match?.[1] ?? '""') as string;
    if (typeof value === 'string') expect(shown).toBe(value);
    else expect(shown).toMatch(value);
    expect(match?.[2]).toBe(error);
  }

  it('merge patch: the patched JSON and encoding/json’s text', async () => {
    const name = await created();
    const r = await api(
      'PATCH',
      `${deployments()}/${name}`,
      { spec: { replicas: '3' } },
      'application/merge-patch+json',
    );
    expectPatchInvalid(
      r,
      /"replicas":"3"/,
      'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    const shown = JSON.parse(
      JSON.parse(/^Invalid value: (".*"): /s.exec(r.body.details.causes[0].message)?.[1] ?? '""'),
    );
    expect(shown.metadata.name).toBe(name);
  });

  it('JSON patch: the same', async () => {
    const name = await created();
    const r = await api(
      'PATCH',
      `${deployments()}/${name}`,
      [{ op: 'replace', path: '/spec/template/spec/containers', value: { name: 'c' } }],
      'application/json-patch+json',
    );
    expectPatchInvalid(
      r,
      /"containers":\{"name":"c"\}/,
      'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container',
    );
  });

  const strategic: [string, Record<string, unknown>, string, string][] = [
    [
      'a string for a bool',
      { spec: { paused: 'yes' } },
      'map[spec:map[paused:yes]]',
      'unrecognized type: bool',
    ],
    [
      'a number for a string',
      { spec: { template: { spec: { containers: [{ name: 'c', image: 5 }] } } } },
      'map[spec:map[template:map[spec:map[containers:[map[image:5 name:c]]]]]]',
      'cannot convert int64 to string',
    ],
    [
      'an object for a list',
      { spec: { template: { spec: { containers: { name: 'c' } } } } },
      'map[spec:map[template:map[spec:map[containers:map[name:c]]]]]',
      'cannot restore slice from map',
    ],
    [
      'a string for a struct',
      { spec: { selector: 'x' } },
      'map[spec:map[selector:x]]',
      'cannot restore struct from: string',
    ],
    [
      'a fraction for an int32',
      { spec: { replicas: 3.5, paused: false } },
      'map[spec:map[paused:false replicas:3.5]]',
      'cannot convert float64 to int32',
    ],
  ];
  for (const [title, patch, shown, error] of strategic) {
    it(`strategic merge patch: ${title}`, async () => {
      const name = await created();
      const r = await api(
        'PATCH',
        `${deployments()}/${name}`,
        patch,
        'application/strategic-merge-patch+json',
      );
      expectPatchInvalid(r, shown, error);
    });
  }
});

describe('server-side apply of values that do not fit the schema: 500 with structured-merge-diff’s text', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      'a string for an int32',
      { replicas: '3' },
      '.spec.replicas: expected numeric (int or float), got string',
    ],
    ['a string for a bool', { paused: 'yes' }, '.spec.paused: expected boolean, got &{yes}'],
    [
      'a number for a string in a keyed list item',
      { template: { spec: { containers: [{ name: 'c', image: 5 }] } } },
      '.spec.template.spec.containers[name="c"].image: expected string, got &value.valueUnstructured{Value:5}',
    ],
    [
      'an object for a list',
      { template: { spec: { containers: { name: 'c' } } } },
      '.spec.template.spec.containers: expected list, got &{map[name:c]}',
    ],
  ];
  for (const [title, spec, error] of cases) {
    it(title, async () => {
      const name = uniqueName('apply');
      const r = await api(
        'PATCH',
        `${deployments()}/${name}?fieldManager=spec`,
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec },
        'application/apply-patch+yaml',
      );
      expect(r.status, r.text).toBe(500);
      expect(r.body).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        code: 500,
        message: `failed to create typed patch object (/${name}; apps/v1, Kind=Deployment): ${error}`,
      });
      expect((r.body as Record<string, any>).reason).toBeUndefined();
    });
  }
});
