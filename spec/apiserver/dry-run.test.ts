// dryRun=All on every write verb: the request is validated, defaulted and admitted, the answer is what a real
// write would return, and nothing is stored — no watch event, no resourceVersion bump.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetCrd } from './support/fixtures.js';
import { api, openWatch, type OpenWatch } from './support/http.js';
import { E2E, startTarget, type Target } from './support/target.js';

let target: Target;
let url: string;
let watch: OpenWatch;
const W = '/apis/example.com/v1/namespaces/default/widgets';
const DRY = 'dryRun=All';

function widget(
  name: string,
  spec: Record<string, unknown> = { size: 2 },
  extra: Record<string, unknown> = {},
) {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec, ...extra };
}

async function listRv(): Promise<string> {
  const list = await api(url, 'GET', W);
  return String(list.body.metadata.resourceVersion);
}

beforeAll(async () => {
  if (E2E) return;
  target = await startTarget();
  url = target.url;
  expect(
    (await api(url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd())).status,
  ).toBe(201);
  await api(url, 'POST', W, widget('base', { size: 2, tags: ['a'] }));
  await api(
    url,
    'POST',
    W,
    widget('held', { size: 2 }, { metadata: { name: 'held', finalizers: ['x.io/hold'] } }),
  );
  watch = await openWatch(url, `${W}?watch=true&resourceVersion=${await listRv()}`);
});

afterAll(async () => {
  if (E2E) return;
  watch.close();
  await target.close();
});

describe.skipIf(E2E)('dryRun=All', () => {
  it('creates: defaulted answer with uid and no resourceVersion; nothing stored', async () => {
    const rv = await listRv();
    const r = await api(url, 'POST', `${W}?${DRY}`, widget('new', {}));
    expect(r.status).toBe(201);
    expect(r.body.spec.size).toBe(3); // schema default applied
    expect(r.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.metadata.generation).toBe(1);
    expect(r.body.metadata.resourceVersion ?? '').toBe('');
    expect((await api(url, 'GET', `${W}/new`)).status).toBe(404);
    expect(await listRv()).toBe(rv);
  });

  it('still validates and admits: invalid objects and existing names fail as a real write would', async () => {
    const bad = await api(url, 'POST', `${W}?${DRY}`, widget('bad', { size: 0 }));
    expect(bad.status).toBe(422);
    expect(bad.body.reason).toBe('Invalid');
    const dup = await api(url, 'POST', `${W}?${DRY}`, widget('base'));
    expect(dup.status).toBe(409);
    const badUpdate = await api(
      url,
      'PATCH',
      `${W}/base?${DRY}`,
      { spec: { color: 'purple' } },
      'application/merge-patch+json',
    );
    expect(badUpdate.status).toBe(422);
  });

  it('updates, patches (merge, JSON, apply) and status writes answer the result at the old resourceVersion', async () => {
    const before = await api(url, 'GET', `${W}/base`);
    const rv = before.body.metadata.resourceVersion as string;
    const put = await api(url, 'PUT', `${W}/base?${DRY}`, { ...before.body, spec: { size: 5, tags: ['a'] } });
    expect(put.status).toBe(200);
    expect(put.body.spec.size).toBe(5);
    expect(put.body.metadata.generation).toBe(2);
    expect(put.body.metadata.resourceVersion).toBe(rv);

    const merge = await api(
      url,
      'PATCH',
      `${W}/base?${DRY}`,
      { spec: { size: 6 } },
      'application/merge-patch+json',
    );
    expect(merge.body.spec).toEqual({ size: 6, tags: ['a'] });
    const json = await api(
      url,
      'PATCH',
      `${W}/base?${DRY}`,
      [{ op: 'add', path: '/spec/tags/-', value: 'b' }],
      'application/json-patch+json',
    );
    expect(json.body.spec.tags).toEqual(['a', 'b']);
    const apply = await api(
      url,
      'PATCH',
      `${W}/base?${DRY}&fieldManager=planner&force=true`,
      widget('base', { size: 7 }),
      'application/apply-patch+yaml',
    );
    expect(apply.status).toBe(200);
    expect(apply.body.spec.size).toBe(7);
    expect(apply.body.metadata.managedFields.map((f: { manager: string }) => f.manager)).toContain('planner');
    const applyNew = await api(
      url,
      'PATCH',
      `${W}/applied?${DRY}&fieldManager=planner`,
      widget('applied', { size: 4 }),
      'application/apply-patch+yaml',
    );
    expect(applyNew.status).toBe(201);
    expect((await api(url, 'GET', `${W}/applied`)).status).toBe(404);

    const status = await api(url, 'PUT', `${W}/base/status?${DRY}`, {
      ...before.body,
      status: { ready: true },
    });
    expect(status.status).toBe(200);
    expect(status.body.status).toEqual({ ready: true });

    const after = await api(url, 'GET', `${W}/base`);
    expect(after.body).toEqual(before.body);
  });

  it('deletes: answers as a real delete, object stays', async () => {
    const gone = await api(url, 'DELETE', `${W}/base?${DRY}`);
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({ kind: 'Status', status: 'Success' });
    const held = await api(url, 'DELETE', `${W}/held`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      dryRun: ['All'],
    });
    expect(held.status).toBe(200);
    expect(held.body.metadata.deletionTimestamp).toBeDefined();
    const still = await api(url, 'GET', `${W}/held`);
    expect(still.body.metadata.deletionTimestamp).toBeUndefined();
    expect((await api(url, 'GET', `${W}/base`)).status).toBe(200);
    const all = await api(url, 'DELETE', `${W}?${DRY}`);
    expect(all.body.items).toHaveLength(2);
    expect((await api(url, 'GET', W)).body.items).toHaveLength(2);
  });

  it("rejects unknown dryRun values with kube-apiserver's Invalid Status on the options kind", async () => {
    const create = await api(url, 'POST', `${W}?dryRun=Some`, widget('x'));
    expect(create.status).toBe(422);
    expect(create.body).toMatchObject({
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
    const patch = await api(
      url,
      'PATCH',
      `${W}/base?dryRun=All&dryRun=x`,
      {},
      'application/merge-patch+json',
    );
    expect(patch.body.details.kind).toBe('PatchOptions');
    const del = await api(url, 'DELETE', `${W}/base`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      dryRun: ['Nope'],
    });
    expect(del.status).toBe(422);
    expect(del.body.details.kind).toBe('DeleteOptions');
    expect((await api(url, 'GET', `${W}/x`)).status).toBe(404);
  });

  it('sent no watch event for any of the dry-run writes', async () => {
    const real = await api(url, 'POST', W, widget('real'));
    expect(real.status).toBe(201);
    const events = await watch.waitFor(1);
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED real']);
  });
});
