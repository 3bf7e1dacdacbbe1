// kubectl explain for custom resources: /openapi/v3 serves one document per CRD group-version, built from
// the version's schema as apiextensions-apiserver's pkg/controller/openapi/builder/builder.go does
// (`<reversed group>.<version>.<Kind>`, apiVersion/kind/metadata filled in, x-kubernetes-group-version-kind),
// and follows CRD changes (the root's hash changes with the document, so kubectl's cache refetches).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrd, kubeApi, removeCrd, type KubeApi } from '../support/kube-api.js';
import { eventually, kubectl, startTarget, type Target } from '../support/target.js';

const GROUP = 'explain.reconcilekit.test';
const NAME = `widgets.${GROUP}`;
// Other files' Widget CRDs may still be going away on a shared cluster: name the group-version.
const V1 = `--api-version=${GROUP}/v1`;

function crd(sizeDescription: string): Record<string, any> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: NAME },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: 'A Widget is a test resource.',
              properties: {
                spec: {
                  type: 'object',
                  description: 'The desired widget.',
                  required: ['size'],
                  properties: {
                    size: { type: 'integer', description: sizeDescription, minimum: 1 },
                    colour: { type: 'string', enum: ['red', 'blue'] },
                    tags: { type: 'array', items: { type: 'string' } },
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
                    template: {
                      type: 'object',
                      'x-kubernetes-embedded-resource': true,
                      'x-kubernetes-preserve-unknown-fields': true,
                    },
                  },
                },
                status: { type: 'object', properties: { ready: { type: 'boolean' } } },
              },
            },
          },
        },
        {
          name: 'v1beta1',
          served: true,
          storage: false,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { legacySize: { type: 'integer' } } } },
            },
          },
        },
      ],
    },
  };
}

let target: Target;
let api: KubeApi;

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
  await installCrd(api, crd('How big the widget is.'));
  // kube-apiserver publishes a new CRD's OpenAPI a moment after it is served.
  await eventually(
    async () => {
      const root = await api('GET', '/openapi/v3');
      const paths = (root.body as { paths?: Record<string, unknown> } | undefined)?.paths ?? {};
      return paths[`apis/${GROUP}/v1`] !== undefined && paths[`apis/${GROUP}/v1beta1`] !== undefined;
    },
    30_000,
    'the CRD in /openapi/v3',
  );
}, 60_000);

afterAll(async () => {
  await removeCrd(api, NAME);
  await target.close();
});

describe('kubectl explain on a custom resource', () => {
  it('explains the resource root with apiVersion, kind, metadata and the schema’s fields', async () => {
    const r = await kubectl(target, ['explain', 'widgets', V1]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`GROUP:      ${GROUP}`);
    expect(r.stdout).toContain('KIND:       Widget');
    expect(r.stdout).toContain('VERSION:    v1');
    expect(r.stdout).toContain('A Widget is a test resource.');
    expect(r.stdout).toMatch(/metadata\s+<ObjectMeta>/);
    expect(r.stdout).toMatch(/apiVersion\s+<string>/);
    expect(r.stdout).toMatch(/spec\s+<Object>/);
    expect(r.stdout).toMatch(/status\s+<Object>/);
  });

  it('explains widgets.spec: types, required, enum and descriptions', async () => {
    const r = await kubectl(target, ['explain', 'widgets.spec', V1]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('The desired widget.');
    expect(r.stdout).toMatch(/size\s+<integer> -required-/);
    expect(r.stdout).toContain('How big the widget is.');
    expect(r.stdout).toMatch(/colour\s+<string>/);
    expect(r.stdout).toContain('enum: red, blue');
    expect(r.stdout).toMatch(/tags\s+<\[\]string>/);
    expect(r.stdout).toMatch(/ports\s+<\[\]Object>/);
  });

  it('explains nested list items and embedded resources', async () => {
    const ports = await kubectl(target, ['explain', 'widget.spec.ports', V1]);
    expect(ports.code, ports.stderr).toBe(0);
    expect(ports.stdout).toMatch(/name\s+<string> -required-/);
    expect(ports.stdout).toMatch(/port\s+<integer>/);
    const template = await kubectl(target, ['explain', 'widgets.spec.template', V1]);
    expect(template.code, template.stderr).toBe(0);
    expect(template.stdout).toMatch(/metadata\s+<ObjectMeta>/);
    expect(template.stdout).toMatch(/kind\s+<string>/);
    const recursive = await kubectl(target, ['explain', 'widgets.spec', '--recursive', V1]);
    expect(recursive.code, recursive.stderr).toBe(0);
    expect(recursive.stdout).toMatch(/ports\s+<\[\]Object>\s+name\s+<string> -required-/);
  });

  it('explains another served version with --api-version', async () => {
    const r = await kubectl(target, ['explain', 'widgets.spec', `--api-version=${GROUP}/v1beta1`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('VERSION:    v1beta1');
    expect(r.stdout).toMatch(/legacySize\s+<integer>/);
    expect(r.stdout).not.toContain('colour');
  });

  it('an unknown field is an error naming it', async () => {
    const r = await kubectl(target, ['explain', 'widgets.spec.nothing', V1]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('field "nothing" does not exist');
  });

  it('follows a CRD update: the new description is served and the root hash changes', async () => {
    const root = async (): Promise<string> => {
      const r = await api('GET', '/openapi/v3');
      return String(r.body.paths[`apis/${GROUP}/v1`]?.serverRelativeURL ?? '');
    };
    const before = await root();
    expect(before).toContain(`/openapi/v3/apis/${GROUP}/v1?hash=`);
    const current = await api('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${NAME}`);
    const next = crd('The size, updated.');
    next.metadata.resourceVersion = current.body.metadata.resourceVersion;
    const put = await api('PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${NAME}`, next);
    expect(put.status, put.text).toBe(200);
    await eventually(async () => (await root()) !== before, 20_000, 'a new openapi hash');
    await eventually(
      async () =>
        (await kubectl(target, ['explain', 'widgets.spec.size', V1])).stdout.includes('The size, updated.'),
      20_000,
      'kubectl explain to show the new description',
    );
  });
});
