// dryRun on both backends (spec/apiserver/dry-run.test.ts covers the embedded server's watch and
// resourceVersion side): a dry-run write answers what the write would return and stores nothing; a dryRun
// value other than All is a 422 on the options kind (k8s.io/apimachinery/pkg/apis/meta/v1/validation,
// ValidateDryRun).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetCrd } from '../support/fixtures.js';
import { installCrd, kubeApi, removeCrd, type KubeApi } from '../support/kube-api.js';
import { startTarget, uniqueName, type Target } from '../support/target.js';

const GROUP = 'dryrun.reconcilekit.test';
const W = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const CM = '/api/v1/namespaces/default/configmaps';
let target: Target;
let api: KubeApi;

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
  await installCrd(api, widgetCrd(GROUP));
}, 30_000);

afterAll(async () => {
  await removeCrd(api, `widgets.${GROUP}`);
  await target.close();
});

const widget = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name },
  spec,
});

describe('dryRun=All', () => {
  it('create answers the defaulted object with a uid and stores nothing', async () => {
    const name = uniqueName('dry');
    const r = await api('POST', `${W}?dryRun=All`, widget(name));
    expect(r.status, r.text).toBe(201);
    const body = r.body as Record<string, any>;
    expect(body.spec.size).toBe(3);
    expect(body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.metadata.generation).toBe(1);
    expect(body.metadata.resourceVersion ?? '').toBe('');
    expect((await api('GET', `${W}/${name}`)).status).toBe(404);
  });

  it('update, patch and delete answer the result and change nothing', async () => {
    const name = uniqueName('dry');
    const created = await api('POST', W, widget(name, { size: 2 }));
    expect(created.status, created.text).toBe(201);
    const stored = created.body as Record<string, any>;
    const put = await api('PUT', `${W}/${name}?dryRun=All`, { ...stored, spec: { size: 5 } });
    expect(put.status, put.text).toBe(200);
    expect((put.body as Record<string, any>).spec.size).toBe(5);
    expect((put.body as Record<string, any>).metadata.generation).toBe(2);
    const patch = await api(
      'PATCH',
      `${W}/${name}?dryRun=All`,
      { spec: { size: 7 } },
      'application/merge-patch+json',
    );
    expect(patch.status, patch.text).toBe(200);
    expect((patch.body as Record<string, any>).spec.size).toBe(7);
    const del = await api('DELETE', `${W}/${name}?dryRun=All`);
    expect(del.status, del.text).toBe(200);
    const after = await api('GET', `${W}/${name}`);
    expect(after.status).toBe(200);
    expect((after.body as Record<string, any>).spec.size).toBe(2);
    expect((after.body as Record<string, any>).metadata.resourceVersion).toBe(
      stored.metadata.resourceVersion,
    );
  });

  it('still validates: an invalid object is a 422 as a real write', async () => {
    const r = await api('POST', `${W}?dryRun=All`, widget(uniqueName('dry'), { size: 0 }));
    expect(r.status, r.text).toBe(422);
  });
});

describe('dryRun values other than All', () => {
  it('are a 422 Invalid on CreateOptions with kube’s text', async () => {
    const r = await api('POST', `${W}?dryRun=Some`, widget(uniqueName('x')));
    expect(r.status, r.text).toBe(422);
    expect(r.body).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      message:
        'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"',
      details: {
        group: 'meta.k8s.io',
        kind: 'CreateOptions',
        causes: [{ reason: 'FieldValueNotSupported', field: 'dryRun' }],
      },
    });
  });

  it('name UpdateOptions, PatchOptions and DeleteOptions (query or body), built-ins too', async () => {
    const name = uniqueName('cm');
    const created = await api('POST', CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name },
      data: { a: '1' },
    });
    expect(created.status, created.text).toBe(201);
    const put = await api('PUT', `${CM}/${name}?dryRun=x`, created.body);
    expect(put.status, put.text).toBe(422);
    expect((put.body as Record<string, any>).details.kind).toBe('UpdateOptions');
    const patch = await api('PATCH', `${CM}/${name}?dryRun=All&dryRun=x`, {}, 'application/merge-patch+json');
    expect(patch.status, patch.text).toBe(422);
    expect((patch.body as Record<string, any>).message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["All","x"]: supported values: "All"',
    );
    const del = await api('DELETE', `${CM}/${name}`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      dryRun: ['Nope'],
    });
    const query = await api('DELETE', `${CM}/${name}?dryRun=Nope`);
    expect(query.status, query.text).toBe(422);
    expect(del.status, del.text).toBe(422);
    expect((del.body as Record<string, any>).details.kind).toBe('DeleteOptions');
    expect((await api('GET', `${CM}/${name}`)).status).toBe(200);
    await api('DELETE', `${CM}/${name}`);
  });
});
