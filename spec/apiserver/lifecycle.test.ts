// Deletion: finalizers, ownerReference garbage collection, namespace termination, CRD removal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetCrd } from './support/fixtures.js';
import { api } from './support/http.js';
import { E2E, eventually, startTarget, type Target } from './support/target.js';

let target: Target;
let url: string;
const CM = '/api/v1/namespaces/default/configmaps';
const W = '/apis/example.com/v1/namespaces/default/widgets';

beforeAll(async () => {
  if (E2E) return; // these checks drive the embedded server over raw HTTP
  target = await startTarget();
  url = target.url;
  await api(url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd());
});

afterAll(async () => {
  if (E2E) return;
  await target.close();
});

async function owner(name: string): Promise<{ uid: string }> {
  const r = await api(url, 'POST', W, {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name },
    spec: {},
  });
  expect(r.status).toBe(201);
  return { uid: r.body.metadata.uid };
}

async function dependent(
  name: string,
  ownerName: string,
  uid: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const r = await api(url, 'POST', CM, {
    metadata: {
      name,
      ownerReferences: [
        { apiVersion: 'example.com/v1', kind: 'Widget', name: ownerName, uid, blockOwnerDeletion: true },
      ],
      ...extra,
    },
  });
  expect(r.status).toBe(201);
}

async function exists(path: string): Promise<boolean> {
  return (await api(url, 'GET', path)).status === 200;
}

describe.skipIf(E2E)('deletion', () => {
  it('answers a success Status for most kinds and the object for pods', async () => {
    const cm = await api(url, 'POST', CM, { metadata: { name: 'gone' } });
    const r = await api(url, 'DELETE', `${CM}/gone`);
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'gone', kind: 'configmaps', uid: cm.body.metadata.uid },
    });
    await api(url, 'POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'app', image: 'busybox' }] },
    });
    const pod = await api(url, 'DELETE', '/api/v1/namespaces/default/pods/p');
    expect(pod.body.kind).toBe('Pod');
  });

  it('honours preconditions and dryRun, and forbids new finalizers once marked', async () => {
    await api(url, 'POST', CM, { metadata: { name: 'pre', finalizers: ['example.com/a'] } });
    const wrongUid = await api(url, 'DELETE', `${CM}/pre`, { preconditions: { uid: 'nope' } });
    expect(wrongUid.status).toBe(409);
    const dry = await api(url, 'DELETE', `${CM}/pre?dryRun=All`);
    expect(dry.status).toBe(200);
    expect((await api(url, 'GET', `${CM}/pre`)).body.metadata.deletionTimestamp).toBeUndefined();
    await api(url, 'DELETE', `${CM}/pre`);
    const added = await api(
      url,
      'PATCH',
      `${CM}/pre`,
      { metadata: { finalizers: ['example.com/a', 'example.com/b'] } },
      'application/merge-patch+json',
    );
    expect(added.status).toBe(422);
    await api(url, 'PATCH', `${CM}/pre`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect(await exists(`${CM}/pre`)).toBe(false);
  });

  it('bumps generation once when marking a custom resource for deletion', async () => {
    await api(url, 'POST', W, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'gen', finalizers: ['example.com/x'] },
      spec: {},
    });
    const marked = await api(url, 'DELETE', `${W}/gen`);
    expect(marked.body.metadata.generation).toBe(2);
    const again = await api(url, 'DELETE', `${W}/gen`);
    expect(again.body.metadata.generation).toBe(2);
    await api(url, 'PATCH', `${W}/gen`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
  });
});

describe.skipIf(E2E)('garbage collection', () => {
  it('deletes dependents in the background once their owner is gone', async () => {
    const { uid } = await owner('bg');
    await dependent('bg-dep', 'bg', uid);
    await api(url, 'DELETE', `${W}/bg`);
    await eventually(async () => !(await exists(`${CM}/bg-dep`)), 3000, 'dependent removal');
  });

  it('deletes a dependent whose owner never existed', async () => {
    await dependent('orphaned-at-birth', 'ghost', '00000000-0000-4000-8000-000000000000');
    await eventually(async () => !(await exists(`${CM}/orphaned-at-birth`)), 3000, 'dependent removal');
  });

  it('Foreground: marks the owner, removes dependents first, then the owner', async () => {
    const { uid } = await owner('fg');
    await dependent('fg-dep', 'fg', uid, { finalizers: ['example.com/slow'] });
    const r = await api(url, 'DELETE', `${W}/fg`, { propagationPolicy: 'Foreground' });
    expect(r.body.metadata.finalizers).toContain('foregroundDeletion');
    expect(r.body.metadata.deletionTimestamp).toBeDefined();
    await eventually(
      async () => (await api(url, 'GET', `${CM}/fg-dep`)).body.metadata.deletionTimestamp !== undefined,
      3000,
      'dependent marked',
    );
    expect(await exists(`${W}/fg`)).toBe(true);
    await api(
      url,
      'PATCH',
      `${CM}/fg-dep`,
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    await eventually(async () => !(await exists(`${W}/fg`)), 3000, 'owner removal');
  });

  it('Orphan: strips the owner reference from dependents and keeps them', async () => {
    const { uid } = await owner('or');
    await dependent('or-dep', 'or', uid);
    await api(url, 'DELETE', `${W}/or?propagationPolicy=Orphan`);
    await eventually(async () => !(await exists(`${W}/or`)), 3000, 'owner removal');
    const dep = await api(url, 'GET', `${CM}/or-dep`);
    expect(dep.status).toBe(200);
    expect(dep.body.metadata.ownerReferences).toBeUndefined();
  });
});

describe.skipIf(E2E)('namespaces', () => {
  it('start with the defaults, Active and labelled', async () => {
    const list = await api(url, 'GET', '/api/v1/namespaces');
    const names: string[] = list.body.items.map((n: { metadata: { name: string } }) => n.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public']));
    const ns = await api(url, 'GET', '/api/v1/namespaces/default');
    expect(ns.body.status.phase).toBe('Active');
    expect(ns.body.metadata.labels['kubernetes.io/metadata.name']).toBe('default');
  });

  it('terminate: contents deleted (finalizers honoured), creates forbidden, then the namespace goes', async () => {
    await api(url, 'POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } });
    await api(url, 'POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'plain' } });
    await api(url, 'POST', '/apis/example.com/v1/namespaces/doomed/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'stuck', finalizers: ['example.com/stuck'] },
      spec: {},
    });
    const r = await api(url, 'DELETE', '/api/v1/namespaces/doomed');
    expect(r.body.status.phase).toBe('Terminating');
    await eventually(
      async () => !(await exists('/api/v1/namespaces/doomed/configmaps/plain')),
      3000,
      'content removal',
    );
    const forbidden = await api(url, 'POST', '/api/v1/namespaces/doomed/configmaps', {
      metadata: { name: 'late' },
    });
    expect(forbidden.status).toBe(403);
    expect(await exists('/api/v1/namespaces/doomed')).toBe(true);
    await api(
      url,
      'PATCH',
      '/apis/example.com/v1/namespaces/doomed/widgets/stuck',
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    await eventually(async () => !(await exists('/api/v1/namespaces/doomed')), 3000, 'namespace removal');
  });
});

describe.skipIf(E2E)('custom resource definitions', () => {
  it('register at once as Established, and deleting one removes its objects, endpoints and discovery', async () => {
    const crd = widgetCrd('gadgets.io');
    const created = await api(url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    const conditions = created.body.status.conditions.map(
      (c: { type: string; status: string }) => `${c.type}=${c.status}`,
    );
    expect(conditions).toEqual(expect.arrayContaining(['Established=True', 'NamesAccepted=True']));
    const path = '/apis/gadgets.io/v1/namespaces/default/widgets';
    expect(
      (
        await api(url, 'POST', path, {
          apiVersion: 'gadgets.io/v1',
          kind: 'Widget',
          metadata: { name: 'g' },
          spec: {},
        })
      ).status,
    ).toBe(201);
    expect((await api(url, 'GET', '/apis/gadgets.io/v1')).status).toBe(200);
    await api(url, 'DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.gadgets.io');
    await eventually(async () => (await api(url, 'GET', path)).status === 404, 3000, 'endpoint removal');
    expect((await api(url, 'GET', '/apis/gadgets.io/v1')).status).toBe(404);
    const groups = await api(url, 'GET', '/apis');
    expect(groups.body.groups.map((g: { name: string }) => g.name)).not.toContain('gadgets.io');
    expect(await exists('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.gadgets.io')).toBe(
      false,
    );
  });

  it('rejects an invalid CRD with 422', async () => {
    const bad = widgetCrd('bad.io');
    (bad.metadata as { name: string }).name = 'wrong.bad.io';
    const r = await api(url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', bad);
    expect(r.status).toBe(422);
  });
});
