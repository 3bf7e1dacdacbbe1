// Server-side apply on custom resources merges lists by their schema's list type. Expectations from
// structured-merge-diff v4 (merge/update.go, typed/merge.go) as apiextensions-apiserver wires it
// (k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go builds the type converter from
// the CRD's structural schema; x-kubernetes-list-type/map-keys/map-type come from
// k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/types_jsonschema.go).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrd, kubeApi, removeCrd, type KubeApi } from '../support/kube-api.js';
import { startTarget, uniqueName, type Target } from '../support/target.js';

const GROUP = 'listmap.reconcilekit.test';
const PATH = `/apis/${GROUP}/v1/namespaces/default/gadgets`;
const APPLY = 'application/apply-patch+yaml';

function crd(): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
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
                    routes: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['protocol', 'port'],
                      items: {
                        type: 'object',
                        required: ['protocol', 'port'],
                        properties: {
                          protocol: { type: 'string' },
                          port: { type: 'integer' },
                          target: { type: 'string' },
                        },
                      },
                    },
                    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
                    plain: { type: 'array', items: { type: 'string' } },
                    selector: {
                      type: 'object',
                      'x-kubernetes-map-type': 'atomic',
                      additionalProperties: { type: 'string' },
                    },
                  },
                },
                status: {
                  type: 'object',
                  properties: { phase: { type: 'string' }, message: { type: 'string' } },
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

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
  await installCrd(api, crd());
}, 30_000);

afterAll(async () => {
  await removeCrd(api, `gadgets.${GROUP}`);
  await target.close();
});

function gadget(name: string, spec: Record<string, unknown>) {
  return { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name }, spec };
}

const apply = (name: string, manager: string, spec: Record<string, unknown>, force = false) =>
  api(
    'PATCH',
    `${PATH}/${name}?fieldManager=${manager}${force ? '&force=true' : ''}`,
    gadget(name, spec),
    APPLY,
  );

describe('server-side apply to the status subresource', () => {
  it('records the manager’s entry with subresource status, and drops a field it stops applying', async () => {
    const name = uniqueName('status');
    expect((await apply(name, 'owner', { tags: ['x'] })).status).toBe(201);
    const statusApply = (status: Record<string, unknown>) =>
      api(
        'PATCH',
        `${PATH}/${name}/status?fieldManager=reporter`,
        { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name }, status },
        APPLY,
      );
    const first = await statusApply({ phase: 'Ready', message: 'all good' });
    expect(first.status).toBe(200);
    const entry = first.body.metadata.managedFields.find((e: any) => e.manager === 'reporter');
    expect(entry).toMatchObject({
      operation: 'Apply',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:phase': {}, 'f:message': {} } },
    });
    const second = await statusApply({ phase: 'Ready' });
    expect(second.body.status).toEqual({ phase: 'Ready' });
  });
});

describe('server-side apply on x-kubernetes-list-type lists of a custom resource', () => {
  it('merges two managers’ items of a map list by key', async () => {
    const name = uniqueName('merge');
    expect((await apply(name, 'alpha', { ports: [{ name: 'a', port: 1 }] })).status).toBe(201);
    const r = await apply(name, 'beta', { ports: [{ name: 'b', port: 2 }] });
    expect(r.status).toBe(200);
    expect(r.body.spec.ports).toEqual([
      { name: 'a', port: 1 },
      { name: 'b', port: 2 },
    ]);
    const beta = r.body.metadata.managedFields.find((e: any) => e.manager === 'beta');
    expect(beta.fieldsV1['f:spec']['f:ports']).toEqual({
      'k:{"name":"b"}': { '.': {}, 'f:name': {}, 'f:port': {} },
    });
  });

  it('names the item’s field in a conflict, and force moves only that field', async () => {
    const name = uniqueName('conflict');
    await apply(name, 'alpha', { ports: [{ name: 'a', port: 1 }] });
    const r = await apply(name, 'beta', { ports: [{ name: 'a', port: 9 }] });
    expect(r.status).toBe(409);
    expect(r.body.reason).toBe('Conflict');
    expect(r.body.message).toBe(
      'Apply failed with 1 conflict: conflict with "alpha": .spec.ports[name="a"].port',
    );
    expect(r.body.details.causes).toEqual([
      {
        reason: 'FieldManagerConflict',
        message: 'conflict with "alpha"',
        field: '.spec.ports[name="a"].port',
      },
    ]);
    const forced = await apply(name, 'beta', { ports: [{ name: 'a', port: 9 }] }, true);
    expect(forced.status).toBe(200);
    expect(forced.body.spec.ports).toEqual([{ name: 'a', port: 9 }]);
    const alpha = forced.body.metadata.managedFields.find((e: any) => e.manager === 'alpha');
    expect(alpha.fieldsV1['f:spec']['f:ports']['k:{"name":"a"}']).toEqual({ '.': {}, 'f:name': {} });
  });

  it('removes only the items a manager stops applying', async () => {
    const name = uniqueName('remove');
    await apply(name, 'alpha', { ports: [{ name: 'a', port: 1 }] });
    await apply(name, 'beta', { ports: [{ name: 'b', port: 2 }] });
    const r = await apply(name, 'alpha', { ports: [] });
    expect(r.status).toBe(200);
    expect(r.body.spec.ports).toEqual([{ name: 'b', port: 2 }]);
  });

  it('keys items by several map keys', async () => {
    const name = uniqueName('multikey');
    await apply(name, 'alpha', { routes: [{ protocol: 'TCP', port: 80, target: 'x' }] });
    const r = await apply(name, 'beta', { routes: [{ protocol: 'UDP', port: 80, target: 'y' }] });
    expect(r.status).toBe(200);
    expect(r.body.spec.routes).toHaveLength(2);
    const beta = r.body.metadata.managedFields.find((e: any) => e.manager === 'beta');
    expect(Object.keys(beta.fieldsV1['f:spec']['f:routes'])).toEqual(['k:{"port":80,"protocol":"UDP"}']);
  });

  it('unions set lists, replaces atomic lists and atomic maps', async () => {
    const name = uniqueName('set');
    await apply(name, 'alpha', { tags: ['x'], plain: ['p'], selector: { a: '1' } });
    const r = await apply(name, 'beta', { tags: ['y'] });
    expect(r.body.spec.tags).toEqual(['x', 'y']);
    const atomic = await apply(name, 'beta', { tags: ['y'], plain: ['q'] });
    expect(atomic.status).toBe(409);
    expect(atomic.body.message).toContain('.spec.plain');
    const map = await apply(name, 'beta', { tags: ['y'], selector: { b: '2' } });
    expect(map.status).toBe(409);
    expect(map.body.message).toContain('.spec.selector');
  });
});
