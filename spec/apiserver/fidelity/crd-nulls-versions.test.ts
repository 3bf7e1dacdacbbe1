// Custom-resource data as apiextensions-apiserver decodes and stores it:
// - a `null` in a field that is not `nullable` and has no default is dropped before validation
//   (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting/prunenulls.go), a defaulted one gets its
//   default (defaulting/algorithm.go), a `nullable` one keeps its null, and a `null` array item is a 422;
// - an object written through a served version that is not the storage version is pruned against the
//   storage version's schema on its way to storage, silently (customresource_handler.go,
//   schemaCoercingConverter), so a field only the other version knows does not survive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrd, kubeApi, removeCrd, type KubeApi } from '../support/kube-api.js';
import { startTarget, uniqueName, type Target } from '../support/target.js';

const GROUP = 'nulls.reconcilekit.test';
const V1 = `/apis/${GROUP}/v1/namespaces/default/parcels`;
const BETA = `/apis/${GROUP}/v1beta1/namespaces/default/parcels`;

function schema(extra: Record<string, unknown>) {
  return {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            size: { type: 'integer' },
            mode: { type: 'string', default: 'auto' },
            note: { type: 'string', nullable: true },
            tags: { type: 'array', items: { type: 'string' } },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
            nested: {
              type: 'object',
              properties: { depth: { type: 'integer' }, name: { type: 'string' } },
            },
            ...extra,
          },
        },
      },
    },
  };
}

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `parcels.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'parcels', singular: 'parcel', kind: 'Parcel' },
    versions: [
      { name: 'v1', served: true, storage: true, schema: schema({}) },
      {
        name: 'v1beta1',
        served: true,
        storage: false,
        schema: schema({ legacyColour: { type: 'string' }, size: { type: 'integer' } }),
      },
    ],
  },
};

let target: Target;
let api: KubeApi;

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
  await installCrd(api, crd);
}, 30_000);

afterAll(async () => {
  await removeCrd(api, `parcels.${GROUP}`);
  await target.close();
});

const parcel = (version: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion: `${GROUP}/${version}`,
  kind: 'Parcel',
  metadata: { name },
  spec,
});

describe('null in custom-resource data', () => {
  it('drops a null in a non-nullable field, defaults a defaulted one and keeps a nullable one', async () => {
    const name = uniqueName('nulls');
    const created = await api(
      'POST',
      V1,
      parcel('v1', name, {
        size: null,
        mode: null,
        note: null,
        labels: { a: 'x', b: null },
        nested: { depth: null, name: 'n' },
      }),
    );
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('warning')).toBeNull();
    const spec = (created.body as Record<string, any>).spec;
    expect(spec).toEqual({ mode: 'auto', note: null, labels: { a: 'x' }, nested: { name: 'n' } });
    const read = await api('GET', `${V1}/${name}`);
    expect((read.body as Record<string, any>).spec).toEqual(spec);
  });

  it('drops nulls on update (PUT) too', async () => {
    const name = uniqueName('nulls-put');
    const created = await api('POST', V1, parcel('v1', name, { size: 3, mode: 'fast' }));
    expect(created.status, created.text).toBe(201);
    const body = created.body as Record<string, any>;
    const put = await api('PUT', `${V1}/${name}`, { ...body, spec: { size: null, mode: null } });
    expect(put.status, put.text).toBe(200);
    expect((put.body as Record<string, any>).spec).toEqual({ mode: 'auto' });
  });

  it('rejects a null array item with 422 at the item', async () => {
    const r = await api('POST', V1, parcel('v1', uniqueName('null-item'), { tags: ['a', null] }));
    expect(r.status, r.text).toBe(422);
    const body = r.body as Record<string, any>;
    expect(body.reason).toBe('Invalid');
    expect(body.details.causes).toEqual([
      expect.objectContaining({
        reason: 'FieldValueTypeInvalid',
        field: 'spec.tags[1]',
      }),
    ]);
    expect(body.message).toContain('spec.tags[1] in body must be of type string: "null"');
  });
});

describe('writes through a version that is not the storage version', () => {
  it('prunes a field the storage version does not know, without a warning', async () => {
    const name = uniqueName('beta');
    const created = await api('POST', BETA, parcel('v1beta1', name, { size: 2, legacyColour: 'red' }));
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('warning')).toBeNull();
    const body = created.body as Record<string, any>;
    expect(body.apiVersion).toBe(`${GROUP}/v1beta1`);
    expect(body.spec).toEqual({ size: 2, mode: 'auto' });
    for (const path of [`${V1}/${name}`, `${BETA}/${name}`]) {
      const read = await api('GET', path);
      expect((read.body as Record<string, any>).spec, path).toEqual({ size: 2, mode: 'auto' });
    }
    const put = await api('PUT', `${BETA}/${name}`, {
      ...body,
      spec: { size: 5, legacyColour: 'blue' },
    });
    expect(put.status, put.text).toBe(200);
    expect((put.body as Record<string, any>).spec).toEqual({ size: 5, mode: 'auto' });
    const patched = await api(
      'PATCH',
      `${BETA}/${name}`,
      { spec: { legacyColour: 'green' } },
      'application/merge-patch+json',
    );
    expect(patched.status, patched.text).toBe(200);
    expect((patched.body as Record<string, any>).spec).toEqual({ size: 5, mode: 'auto' });
  });

  it('still warns about a field neither version knows (fieldValidation Warn)', async () => {
    const created = await api('POST', BETA, parcel('v1beta1', uniqueName('beta-unknown'), { bogus: 1 }));
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('warning')).toContain('unknown field \\"spec.bogus\\"');
  });

  it('through the storage version the field is unknown at decoding: pruned with a warning', async () => {
    const name = uniqueName('v1');
    const created = await api('POST', V1, parcel('v1', name, { size: 1, legacyColour: 'red' }));
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('warning')).toContain('unknown field \\"spec.legacyColour\\"');
    expect((created.body as Record<string, any>).spec).toEqual({ size: 1, mode: 'auto' });
  });
});
