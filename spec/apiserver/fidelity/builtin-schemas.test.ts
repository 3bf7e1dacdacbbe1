// Built-in kinds checked against their generated OpenAPI schemas (lib/apiserver/builtin/generated, from
// k8s.io/kubernetes v1.34 api/openapi-spec/v3), as kube-apiserver v1.34 does. Sources:
// k8s.io/apiserver pkg/endpoints/handlers/create.go + rest.go (fieldValidation Strict/Warn/Ignore and the
// `strict decoding error: unknown field` text), k8s.io/apimachinery pkg/util/strategicpatch (merge keys and
// strategies from the patchMergeKey/patchStrategy tags), sigs.k8s.io/structured-merge-diff and
// k8s.io/kube-openapi pkg/schemaconv (server-side apply: x-kubernetes-list-type/map-keys, else the patch
// strategy; atomic maps).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeApi, type KubeApi } from '../support/kube-api.js';
import { kubectl, startTarget, uniqueName, type Target } from '../support/target.js';

const NS = '/api/v1/namespaces/default';
const APPS = '/apis/apps/v1/namespaces/default';
const SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';
let target: Target;
let api: KubeApi;

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
});

afterAll(async () => {
  await target.close();
});

function deployment(name: string, container: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [container] } },
    },
  };
}

describe('unknown fields of built-in kinds', () => {
  it('kubectl apply (strict) rejects a misspelt field deep in a Deployment and stores nothing', async () => {
    const name = uniqueName('strict');
    const manifest = deployment(name, { name: 'app', image: 'nginx', imagePullPolice: 'Always' });
    const r = await kubectl(target, ['apply', '-f', '-'], JSON.stringify(manifest));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolice"',
    );
    const get = await api('GET', `${APPS}/deployments/${name}`);
    expect(get.status).toBe(404);
  });

  it('drops unknown fields with a warning when no fieldValidation is sent (client-node)', async () => {
    const name = uniqueName('warn');
    const r = await api('POST', `${NS}/configmaps`, {
      metadata: { name, colour: 'red' },
      data: { a: '1' },
      extra: { nested: true },
    });
    expect(r.status).toBe(201);
    expect(r.body.extra).toBeUndefined();
    expect(r.body.metadata.colour).toBeUndefined();
    const warnings = r.headers.get('warning') ?? '';
    expect(warnings).toContain('unknown field \\"extra\\"');
    expect(warnings).toContain('unknown field \\"metadata.colour\\"');
  });

  it('fieldValidation=Strict answers 400 naming every unknown field; Ignore drops them silently', async () => {
    const body = {
      metadata: { name: uniqueName('svc') },
      spec: { ports: [{ port: 80, targetPorts: 8080 }], selectorr: { app: 'x' } },
    };
    const strict = await api('POST', `${NS}/services?fieldValidation=Strict`, body);
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe(
      'Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.ports[0].targetPorts", unknown field "spec.selectorr"',
    );
    const ignore = await api('POST', `${NS}/services?fieldValidation=Ignore`, body);
    expect(ignore.status).toBe(201);
    expect(ignore.headers.get('warning')).toBeNull();
    expect(ignore.body.spec.selectorr).toBeUndefined();
    expect(ignore.body.spec.ports[0].targetPorts).toBeUndefined();
  });

  it('keeps what the schema leaves open (annotations, resource quantities, managedFields)', async () => {
    const name = uniqueName('pod');
    const r = await api('POST', `${NS}/pods?fieldValidation=Strict`, {
      metadata: { name, annotations: { 'any/key': 'v' } },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'busybox',
            resources: { limits: { cpu: '1000m', memory: '1024Mi' }, requests: { memory: 64 } },
          },
        ],
        nodeSelector: { disk: 'ssd' },
      },
    });
    expect(r.status).toBe(201);
    // Quantities come back in canonical form (Quantity.CanonicalizeBytes): a number as a string; a
    // limit without a request is requested at the limit (SetDefaults_Pod).
    expect(r.body.spec.containers[0].resources).toEqual({
      limits: { cpu: '1', memory: '1Gi' },
      requests: { cpu: '1', memory: '64' },
    });
    expect(r.body.spec.nodeSelector).toEqual({ disk: 'ssd' });
    expect(r.body.metadata.managedFields[0].fieldsV1['f:spec']).toBeDefined();
  });
});

describe('strategic merge patch keys from the schema', () => {
  it('deletes a scheduling gate by name and merges containers by name (kubectl patch)', async () => {
    const name = uniqueName('gates');
    const created = await api('POST', `${NS}/pods`, {
      metadata: { name },
      spec: {
        schedulingGates: [{ name: 'example.com/a' }, { name: 'example.com/b' }],
        containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }] }],
      },
    });
    expect(created.status).toBe(201);
    // A Pod's spec allows few changes (ValidatePodUpdate): gates may only be removed, images changed.
    const patch = {
      spec: {
        schedulingGates: [{ name: 'example.com/a', $patch: 'delete' }],
        containers: [{ name: 'c', image: 'busybox:1.36' }],
      },
    };
    const r = await kubectl(target, ['patch', 'pod', name, '-p', JSON.stringify(patch), '-o', 'json']);
    expect(r.stderr).toBe('');
    const pod = JSON.parse(r.stdout);
    expect(pod.spec.schedulingGates).toEqual([{ name: 'example.com/b' }]);
    expect(pod.spec.containers).toHaveLength(1);
    expect(pod.spec.containers[0].image).toBe('busybox:1.36');
    expect(pod.spec.containers[0].ports).toEqual([{ containerPort: 80, protocol: 'TCP' }]);
  });

  it('merges status.podIPs by ip on the status subresource; podIP stays authoritative', async () => {
    const name = uniqueName('ips');
    await api('POST', `${NS}/pods`, {
      metadata: { name },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    });
    const first = await api(
      'PATCH',
      `${NS}/pods/${name}/status`,
      { status: { podIPs: [{ ip: '10.0.0.1' }] } },
      SMP,
    );
    expect(first.status).toBe(200);
    // podIP follows podIPs[0] (pkg/apis/core/v1/conversion.go).
    expect(first.body.status).toMatchObject({ podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }] });
    const ordered = await api(
      'PATCH',
      `${NS}/pods/${name}/status`,
      {
        status: {
          '$setElementOrder/podIPs': [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }],
          podIPs: [{ ip: 'fd00::1' }],
        },
      },
      SMP,
    );
    expect(ordered.status).toBe(200);
    expect(ordered.body.status.podIPs).toEqual([{ ip: '10.0.0.1' }, { ip: 'fd00::1' }]);
    // Without an order the new item goes first (normalizeElementOrder); podIP then disagrees with
    // podIPs[0] and wins: podIPs becomes [podIP].
    const unordered = await api(
      'PATCH',
      `${NS}/pods/${name}/status`,
      { status: { podIPs: [{ ip: '10.0.0.2' }] } },
      SMP,
    );
    expect(unordered.status).toBe(200);
    expect(unordered.body.status).toMatchObject({ podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }] });
  });
});

describe('server-side apply on built-ins follows the schema', () => {
  it('two managers own different ports of one container (keys containerPort + protocol)', async () => {
    const name = uniqueName('ssa');
    const a = await api(
      'PATCH',
      `${APPS}/deployments/${name}?fieldManager=alpha`,
      deployment(name, { name: 'app', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }),
      APPLY,
    );
    expect(a.status).toBe(201);
    const b = await api(
      'PATCH',
      `${APPS}/deployments/${name}?fieldManager=beta`,
      deployment(name, { name: 'app', image: 'nginx', ports: [{ containerPort: 53, protocol: 'UDP' }] }),
      APPLY,
    );
    expect(b.status).toBe(200);
    const ports = b.body.spec.template.spec.containers[0].ports;
    expect(ports).toHaveLength(2);
    const beta = b.body.metadata.managedFields.find((m: any) => m.manager === 'beta');
    const container = beta.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"app"}'];
    expect(Object.keys(container['f:ports'])).toEqual(['k:{"containerPort":53,"protocol":"UDP"}']);
    // The selector is an atomic map: one leaf, owned whole.
    expect(beta.fieldsV1['f:spec']['f:selector']).toEqual({});
  });
});

describe('server-side apply with a list-map key left to its default', () => {
  it('re-applying a Service whose port names no protocol succeeds; the key carries TCP', async () => {
    const name = uniqueName('svc');
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }] } };
    const path = `${NS}/services/${name}?fieldManager=m`;
    expect((await api('PATCH', path, svc, APPLY)).status).toBe(201);
    const again = await api('PATCH', path, svc, APPLY);
    expect(again.status).toBe(200);
    expect(again.body.spec.ports).toHaveLength(1);
    const entry = again.body.metadata.managedFields.find((m: any) => m.manager === 'm');
    expect(Object.keys(entry.fieldsV1['f:spec']['f:ports'])).toEqual(['k:{"port":80,"protocol":"TCP"}']);
  });
});

describe('/openapi/v3 for built-ins', () => {
  it('kubectl explain deployment.spec shows the fields and their descriptions', async () => {
    const r = await kubectl(target, ['explain', 'deployment.spec']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('KIND:       Deployment');
    expect(r.stdout).toMatch(/replicas\s+<integer>/);
    expect(r.stdout).toMatch(/selector\s+<LabelSelector> -required-/);
    expect(r.stdout).toContain('Number of desired pods.');
  });

  it('kubectl explain pod.spec.containers.ports names the nested fields', async () => {
    const r = await kubectl(target, ['explain', 'pod.spec.containers.ports']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/containerPort\s+<integer> -required-/);
  });
});
