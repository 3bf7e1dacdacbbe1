// A main-resource write to a custom resource with a status subresource: kube resets the status to the
// stored one before validating (k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go,
// PrepareForUpdate runs before ValidateUpdate), so the schema and x-kubernetes-validations rules see the
// stored status, never the one the client sent; the /status endpoint validates the status it is sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrd, kubeApi, removeCrd, type KubeApi } from '../support/kube-api.js';
import { startTarget, uniqueName, type Target } from '../support/target.js';

const GROUP = 'statusreset.reconcilekit.test';
const PATH = `/apis/${GROUP}/v1/namespaces/default/meters`;

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `meters.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'meters', singular: 'meter', kind: 'Meter' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            'x-kubernetes-validations': [
              {
                rule: '!has(self.status) || !has(self.status.ready) || self.spec.replicas >= self.status.ready',
                message: 'replicas below ready',
              },
            ],
            properties: {
              spec: { type: 'object', properties: { replicas: { type: 'integer' } } },
              status: {
                type: 'object',
                properties: {
                  ready: { type: 'integer', maximum: 50 },
                  phase: {
                    type: 'string',
                    'x-kubernetes-validations': [{ rule: 'self != "Broken"', message: 'phase is Broken' }],
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

let target: Target;
let api: KubeApi;

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
  await installCrd(api, crd);
}, 30_000);

afterAll(async () => {
  await removeCrd(api, `meters.${GROUP}`);
  await target.close();
});

/** A Meter with spec.replicas 3 and the status {ready: 2} written through /status. */
async function meterWithStatus(): Promise<{ name: string; stored: Record<string, any> }> {
  const name = uniqueName('meter');
  const created = await api('POST', PATH, {
    apiVersion: `${GROUP}/v1`,
    kind: 'Meter',
    metadata: { name },
    spec: { replicas: 3 },
  });
  expect(created.status, created.text).toBe(201);
  const body = created.body as Record<string, any>;
  const status = await api('PUT', `${PATH}/${name}/status`, { ...body, status: { ready: 2 } });
  expect(status.status, status.text).toBe(200);
  return { name, stored: status.body as Record<string, any> };
}

describe('main-resource writes validate the stored status, not the sent one', () => {
  it('PUT with a status every rule rejects is accepted, and the stored status is kept', async () => {
    const { name, stored } = await meterWithStatus();
    const put = await api('PUT', `${PATH}/${name}`, {
      ...stored,
      spec: { replicas: 4 },
      status: { ready: 100, phase: 'Broken' },
    });
    expect(put.status, put.text).toBe(200);
    const body = put.body as Record<string, any>;
    expect(body.spec).toEqual({ replicas: 4 });
    expect(body.status).toEqual({ ready: 2 });
  });

  it('PUT is rejected by a rule over the stored status even when the sent status would pass it', async () => {
    const { name, stored } = await meterWithStatus();
    const put = await api('PUT', `${PATH}/${name}`, {
      ...stored,
      spec: { replicas: 1 },
      status: { ready: 0 },
    });
    expect(put.status, put.text).toBe(422);
    const body = put.body as Record<string, any>;
    expect(body.reason).toBe('Invalid');
    expect(body.message).toContain('replicas below ready');
    expect(body.message).not.toContain('Broken');
  });

  it('a merge patch of spec and status is checked against the stored status too', async () => {
    const { name } = await meterWithStatus();
    const rejected = await api(
      'PATCH',
      `${PATH}/${name}`,
      { spec: { replicas: 1 }, status: { ready: 1 } },
      'application/merge-patch+json',
    );
    expect(rejected.status, rejected.text).toBe(422);
    expect((rejected.body as Record<string, any>).message).toContain('replicas below ready');
    const accepted = await api(
      'PATCH',
      `${PATH}/${name}`,
      { spec: { replicas: 2 }, status: { ready: 100, phase: 'Broken' } },
      'application/merge-patch+json',
    );
    expect(accepted.status, accepted.text).toBe(200);
    expect((accepted.body as Record<string, any>).status).toEqual({ ready: 2 });
  });

  it('the /status endpoint validates the status it is sent', async () => {
    const { name, stored } = await meterWithStatus();
    const broken = await api('PUT', `${PATH}/${name}/status`, {
      ...stored,
      status: { ready: 2, phase: 'Broken' },
    });
    expect(broken.status, broken.text).toBe(422);
    expect((broken.body as Record<string, any>).message).toContain('phase is Broken');
    const tooMany = await api(
      'PATCH',
      `${PATH}/${name}/status`,
      { status: { ready: 60 } },
      'application/merge-patch+json',
    );
    expect(tooMany.status, tooMany.text).toBe(422);
    expect((tooMany.body as Record<string, any>).message).toContain('status.ready');
  });
});
