// REST semantics over raw HTTP: Status shapes, concurrency, custom-resource rules, patches, lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetCrd } from './support/fixtures.js';
import { startApiServer } from '../../lib/apiserver/index.js';
import { api, causeFields, names, openWatch } from './support/http.js';
import { E2E, startTarget, type Target } from './support/target.js';

let target: Target;
let url: string;
const W = '/apis/example.com/v1/namespaces/default/widgets';
const CM = '/api/v1/namespaces/default/configmaps';

function widget(
  name: string,
  spec: Record<string, unknown> = { size: 2 },
  extra: Record<string, unknown> = {},
) {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec, ...extra };
}

beforeAll(async () => {
  if (E2E) return; // these checks drive the embedded server over raw HTTP
  target = await startTarget();
  url = target.url;
  const crd = await api(url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd());
  expect(crd.status).toBe(201);
});

afterAll(async () => {
  if (E2E) return;
  await target.close();
});

describe.skipIf(E2E)('create, read, update', () => {
  it('creates with uid, second-precision creationTimestamp, generation 1 and a numeric resourceVersion', async () => {
    const r = await api(url, 'POST', W, widget('a'));
    expect(r.status).toBe(201);
    expect(r.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(r.body.metadata.generation).toBe(1);
    expect(r.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(r.body.metadata.namespace).toBe('default');
  });

  it('answers AlreadyExists and NotFound with exact Status objects', async () => {
    await api(url, 'POST', W, widget('dup'));
    const again = await api(url, 'POST', W, widget('dup'));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'AlreadyExists',
      message: 'widgets.example.com "dup" already exists',
      details: { name: 'dup', group: 'example.com', kind: 'widgets' },
      code: 409,
    });
    const missing = await api(url, 'GET', `${CM}/nope`);
    expect(missing.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'configmaps' },
      code: 404,
    });
  });

  it('rejects a stale resourceVersion with 409 Conflict and bumps the version on every write', async () => {
    const created = await api(url, 'POST', CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'occ' },
      data: { a: '1' },
    });
    const rv1 = Number(created.body.metadata.resourceVersion);
    const updated = await api(url, 'PUT', `${CM}/occ`, { ...created.body, data: { a: '2' } });
    expect(updated.status).toBe(200);
    expect(Number(updated.body.metadata.resourceVersion)).toBeGreaterThan(rv1);
    const stale = await api(url, 'PUT', `${CM}/occ`, { ...created.body, data: { a: '3' } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect(stale.body.message).toContain('the object has been modified');
    const unconditional = await api(url, 'PUT', `${CM}/occ`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'occ' },
      data: { a: '4' },
    });
    expect(unconditional.status).toBe(200);
  });

  it('requires resourceVersion on custom resource PUT and never creates by PUT', async () => {
    await api(url, 'POST', W, widget('put'));
    const noRv = await api(url, 'PUT', `${W}/put`, widget('put', { size: 5 }));
    expect(noRv.status).toBe(422);
    expect(noRv.body.details.causes[0].field).toBe('metadata.resourceVersion');
    const missing = await api(url, 'PUT', `${W}/ghost`, {
      ...widget('ghost'),
      metadata: { name: 'ghost', resourceVersion: '1' },
    });
    expect(missing.status).toBe(404);
  });

  it('keeps status out of main-resource writes and spec out of /status writes; generation tracks spec only', async () => {
    const created = await api(url, 'POST', W, widget('iso', { size: 2 }, { status: { phase: 'ignored' } }));
    expect(created.body.status).toBeUndefined();
    const st = await api(url, 'PUT', `${W}/iso/status`, {
      ...created.body,
      spec: { size: 99 },
      status: { phase: 'Ready' },
    });
    expect(st.status).toBe(200);
    expect(st.body.status).toEqual({ phase: 'Ready' });
    expect(st.body.spec.size).toBe(2);
    expect(st.body.metadata.generation).toBe(1);
    const main = await api(url, 'PUT', `${W}/iso`, {
      ...st.body,
      spec: { size: 3 },
      status: { phase: 'Hacked' },
    });
    expect(main.body.status).toEqual({ phase: 'Ready' });
    expect(main.body.metadata.generation).toBe(2);
    const metaOnly = await api(url, 'PUT', `${W}/iso`, {
      ...main.body,
      metadata: { ...main.body.metadata, labels: { a: 'b' } },
    });
    expect(metaOnly.body.metadata.generation).toBe(2);
  });

  it('generates names from generateName', async () => {
    const r = await api(url, 'POST', W, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { generateName: 'gen-' },
      spec: {},
    });
    expect(r.status).toBe(201);
    expect(r.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const neither = await api(url, 'POST', W, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: {} });
    expect(neither.status).toBe(422);
  });

  it('rejects bodies that do not fit the URL', async () => {
    // A custom resource of another kind: apiextensions-apiserver's 422 on `kind` (spec/apiserver/fidelity/status-messages).
    expect((await api(url, 'POST', W, { ...widget('k'), kind: 'Gadget' })).status).toBe(422);
    expect((await api(url, 'POST', W, { ...widget('k'), apiVersion: 'example.com/v2' })).status).toBe(400);
    expect(
      (await api(url, 'POST', W, { ...widget('k'), metadata: { name: 'k', namespace: 'other' } })).status,
    ).toBe(400);
    await api(url, 'POST', W, widget('named'));
    const got = await api(url, 'GET', `${W}/named`);
    expect(
      (
        await api(url, 'PUT', `${W}/named`, {
          ...got.body,
          metadata: { ...got.body.metadata, name: 'other' },
        })
      ).status,
    ).toBe(400);
    expect((await api(url, 'POST', W, '{"not json')).status).toBe(400);
    const withRv = await api(url, 'POST', W, {
      ...widget('rv'),
      metadata: { name: 'rv', resourceVersion: '5' },
    });
    expect(withRv.status).toBe(500);
    const missingNs = await api(url, 'POST', '/api/v1/namespaces/absent/configmaps', {
      metadata: { name: 'x' },
    });
    expect(missingNs.status).toBe(404);
    expect(missingNs.body.message).toBe('namespaces "absent" not found');
  });

  it('validates against the schema (422 with causes), applies defaults, and honours fieldValidation', async () => {
    const bad = await api(url, 'POST', W, widget('bad', { size: 'big', color: 'pink' }));
    expect(bad.status).toBe(422);
    expect(bad.body.reason).toBe('Invalid');
    expect(bad.body.details.kind).toBe('Widget');
    expect(causeFields(bad.body)).toEqual(['spec.color', 'spec.size']);
    const defaulted = await api(url, 'POST', W, widget('def', {}));
    expect(defaulted.body.spec.size).toBe(3);
    const strict = await api(
      url,
      'POST',
      `${W}?fieldValidation=Strict`,
      widget('strict', { size: 1, colour: 'red' }),
    );
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain('unknown field "spec.colour"');
    const warn = await api(url, 'POST', W, widget('warn', { size: 1, colour: 'red' }));
    expect(warn.status).toBe(201);
    expect(warn.headers.get('warning')).toContain('unknown field \\"spec.colour\\"');
    expect(warn.body.spec).toEqual({ size: 1 });
  });

  it('warns about unqualified finalizers on custom resources and rejects them on built-ins', async () => {
    const cr = await api(
      url,
      'POST',
      W,
      widget('fin', { size: 1 }, { metadata: { name: 'fin', finalizers: ['plain'] } }),
    );
    expect(cr.status).toBe(201);
    expect(cr.headers.get('warning')).toContain('prefer a domain-qualified finalizer name');
    const cm = await api(url, 'POST', CM, { metadata: { name: 'fin', finalizers: ['plain'] } });
    expect(cm.status).toBe(422);
    await api(url, 'PATCH', `${W}/fin`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
  });

  it('re-serialises typed times: MicroTime with six digits, Time with seconds, unparsable → 400', async () => {
    const lease = await api(url, 'POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      metadata: { name: 'lock' },
      spec: {
        holderIdentity: 'me',
        renewTime: '2026-11-21T10:00:00.123Z',
        acquireTime: '2026-11-21T11:00:00+01:00',
      },
    });
    expect(lease.body.spec.renewTime).toBe('2026-11-21T10:00:00.123000Z');
    expect(lease.body.spec.acquireTime).toBe('2026-11-21T10:00:00.000000Z');
    const event = await api(url, 'POST', '/api/v1/namespaces/default/events', {
      metadata: { name: 'ev' },
      involvedObject: { kind: 'Widget', name: 'x' },
      firstTimestamp: '2026-11-21T10:00:00.999Z',
    });
    expect(event.body.firstTimestamp).toBe('2026-11-21T10:00:00Z');
    const bad = await api(url, 'POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      metadata: { name: 'bad' },
      spec: { renewTime: 'yesterday' },
    });
    expect(bad.status).toBe(400);
  });

  it('does not persist dryRun=All writes', async () => {
    const r = await api(url, 'POST', `${W}?dryRun=All`, widget('dry'));
    expect(r.status).toBe(201);
    expect((await api(url, 'GET', `${W}/dry`)).status).toBe(404);
  });

  it('serves the scale subresource', async () => {
    await api(url, 'POST', W, widget('scaled', { size: 2 }));
    const scale = await api(url, 'GET', `${W}/scaled/scale`);
    expect(scale.body).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 } });
    const put = await api(url, 'PUT', `${W}/scaled/scale`, { ...scale.body, spec: { replicas: 4 } });
    expect(put.body.spec.replicas).toBe(4);
    const after = await api(url, 'GET', `${W}/scaled`);
    expect(after.body.spec.size).toBe(4);
    expect(after.body.metadata.generation).toBe(2);
  });
});

describe.skipIf(E2E)('patch', () => {
  it('selects the algorithm by content type: merge, JSON patch with test, 415 for SMP on CRs and unknown types', async () => {
    await api(url, 'POST', W, widget('p', { size: 2, tags: ['a'] }));
    const merged = await api(
      url,
      'PATCH',
      `${W}/p`,
      { spec: { tags: null, color: 'red' } },
      'application/merge-patch+json',
    );
    expect(merged.body.spec).toEqual({ size: 2, color: 'red' });
    const json = await api(
      url,
      'PATCH',
      `${W}/p`,
      [
        { op: 'test', path: '/spec/size', value: 2 },
        { op: 'replace', path: '/spec/size', value: 5 },
      ],
      'application/json-patch+json',
    );
    expect(json.body.spec.size).toBe(5);
    const failed = await api(
      url,
      'PATCH',
      `${W}/p`,
      [{ op: 'test', path: '/spec/size', value: 2 }],
      'application/json-patch+json',
    );
    expect(failed.status).toBe(422);
    const notArray = await api(url, 'PATCH', `${W}/p`, { spec: {} }, 'application/json-patch+json');
    expect(notArray.status).toBe(400);
    const smp = await api(url, 'PATCH', `${W}/p`, { spec: {} }, 'application/strategic-merge-patch+json');
    expect(smp.status).toBe(415);
    expect(smp.body.reason).toBe('UnsupportedMediaType');
    expect((await api(url, 'PATCH', `${W}/p`, {}, 'text/plain')).status).toBe(415);
    expect((await api(url, 'PATCH', `${W}/missing`, {}, 'application/merge-patch+json')).status).toBe(404);
    const stale = await api(
      url,
      'PATCH',
      `${W}/p`,
      { metadata: { resourceVersion: '1' } },
      'application/merge-patch+json',
    );
    expect(stale.status).toBe(409);
  });

  it('strategic-merge-patches built-ins, unioning finalizers', async () => {
    await api(url, 'POST', CM, { metadata: { name: 'smp', finalizers: ['a.io/x'] }, data: { a: '1' } });
    const r = await api(
      url,
      'PATCH',
      `${CM}/smp`,
      { metadata: { finalizers: ['b.io/y'] }, data: { b: '2' } },
      'application/strategic-merge-patch+json',
    );
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ a: '1', b: '2' });
    expect(r.body.metadata.finalizers.sort()).toEqual(['a.io/x', 'b.io/y']);
    await api(
      url,
      'PATCH',
      `${CM}/smp`,
      [{ op: 'remove', path: '/metadata/finalizers' }],
      'application/json-patch+json',
    );
  });

  it('server-side apply creates (201), then updates (200), and requires fieldManager', async () => {
    const body = JSON.stringify(widget('ssa', { size: 2 }));
    const noManager = await api(url, 'PATCH', `${W}/ssa`, body, 'application/apply-patch+yaml');
    expect(noManager.status).toBe(400);
    const created = await api(url, 'PATCH', `${W}/ssa?fieldManager=me`, body, 'application/apply-patch+yaml');
    expect(created.status).toBe(201);
    const updated = await api(
      url,
      'PATCH',
      `${W}/ssa?fieldManager=me`,
      JSON.stringify(widget('ssa', { size: 4 })),
      'application/apply-patch+yaml',
    );
    expect(updated.status).toBe(200);
    expect(updated.body.spec.size).toBe(4);
  });
});

describe.skipIf(E2E)('list', () => {
  it('orders by namespace then name, filters by labels, and paginates with continue', async () => {
    for (const name of ['l-c', 'l-a', 'l-b', 'l-d']) {
      await api(url, 'POST', CM, { metadata: { name, labels: { list: 'yes', name } } });
    }
    const all = await api(url, 'GET', `${CM}?labelSelector=list%3Dyes`);
    expect(all.body.kind).toBe('ConfigMapList');
    expect(names(all.body)).toEqual(['l-a', 'l-b', 'l-c', 'l-d']);
    expect(all.body.items[0].kind).toBeUndefined();
    const page1 = await api(url, 'GET', `${CM}?labelSelector=list%3Dyes&limit=3`);
    expect(page1.body.items).toHaveLength(3);
    expect(page1.body.metadata.remainingItemCount).toBe(1);
    const page2 = await api(
      url,
      'GET',
      `${CM}?labelSelector=list%3Dyes&limit=3&continue=${page1.body.metadata.continue}`,
    );
    expect(names(page2.body)).toEqual(['l-d']);
    expect(page2.body.metadata.continue).toBeUndefined();
    expect(page2.body.metadata.resourceVersion).toBe(page1.body.metadata.resourceVersion);
    const notIn = await api(url, 'GET', `${CM}?labelSelector=name%20notin%20(l-a,l-b),list`);
    expect(names(notIn.body)).toEqual(['l-c', 'l-d']);
    const byName = await api(url, 'GET', `${CM}?fieldSelector=metadata.name%3Dl-b`);
    expect(names(byName.body)).toEqual(['l-b']);
  });

  it('finds core Events by the involvedObject selector kubectl describe sends', async () => {
    const involved = { kind: 'Widget', name: 'described', namespace: 'default', uid: 'uid-1' };
    await api(url, 'POST', '/api/v1/namespaces/default/events', {
      metadata: { name: 'described.1' },
      involvedObject: involved,
      reason: 'Hello',
    });
    await api(url, 'POST', '/api/v1/namespaces/default/events', {
      metadata: { name: 'other.1' },
      involvedObject: { ...involved, name: 'other', uid: 'uid-2' },
    });
    const selector = encodeURIComponent(
      'involvedObject.name=described,involvedObject.namespace=default,involvedObject.kind=Widget,involvedObject.uid=uid-1',
    );
    const r = await api(url, 'GET', `/api/v1/namespaces/default/events?fieldSelector=${selector}&limit=500`);
    expect(names(r.body)).toEqual(['described.1']);
  });

  it('filters custom resources by the CRD selectableFields', async () => {
    await api(url, 'POST', W, widget('sel-red', { size: 1, color: 'red' }));
    await api(url, 'POST', W, widget('sel-blue', { size: 1, color: 'blue' }));
    const red = await api(url, 'GET', `${W}?fieldSelector=spec.color%3Dred`);
    expect(names(red.body)).toContain('sel-red');
    expect(names(red.body)).not.toContain('sel-blue');
    expect((await api(url, 'GET', `${W}?fieldSelector=spec.size%3D1`)).status).toBe(400);
  });

  it('answers 410 for an expired continue token and 400 for bad selectors', async () => {
    const token = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1, start: '/a\u0000' })).toString(
      'base64url',
    );
    const expired = await api(url, 'GET', `${CM}?limit=1&continue=${token}`);
    expect(expired.status).toBe(410);
    expect(expired.body.reason).toBe('Expired');
    expect((await api(url, 'GET', `${CM}?labelSelector=a%20in%20(`)).status).toBe(400);
    expect((await api(url, 'GET', `${CM}?fieldSelector=spec.nope%3D1`)).status).toBe(400);
  });

  it('renders Tables with printer columns when asked', async () => {
    await api(url, 'POST', W, widget('tbl', { size: 7 }));
    const r = await api(url, 'GET', `${W}?fieldSelector=metadata.name%3Dtbl`, undefined, undefined, {
      Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    expect(r.body.kind).toBe('Table');
    expect(r.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Size', 'Age']);
    expect(r.body.rows[0].cells.slice(0, 2)).toEqual(['tbl', 7]);
  });
});

describe.skipIf(E2E)('transport', () => {
  it('answers 404 for unknown paths and 413 for bodies over 3 MiB', async () => {
    const unknown = await api(url, 'GET', '/apis/nope.io/v1/things');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe('404 page not found\n'); // an unserved group: Go's http.NotFound
    const unknownResource = await api(url, 'GET', '/api/v1/things');
    expect(unknownResource.status).toBe(404);
    expect(unknownResource.body.kind).toBe('Status');
    const huge = await api(url, 'POST', CM, {
      metadata: { name: 'huge' },
      data: { a: 'x'.repeat(3 * 1024 * 1024 + 10) },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe(413);
  });

  it('closes on its AbortSignal, ending open watches and freeing the port', async () => {
    const controller = new AbortController();
    const own = await startApiServer({ signal: controller.signal });
    const watch = await openWatch(own.url, '/api/v1/namespaces?watch=true');
    await watch.waitFor(4);
    controller.abort();
    await watch.ended;
    await expect(fetch(`${own.url}/healthz`)).rejects.toThrow();
  });

  it('requires the bearer token when one is configured', async () => {
    const secured = await startTarget({ token: 's3cret' });
    try {
      const denied = await api(secured.url, 'GET', '/api/v1/namespaces');
      expect(denied.status).toBe(401);
      expect(denied.body.reason).toBe('Unauthorized');
      const allowed = await api(secured.url, 'GET', '/api/v1/namespaces', undefined, undefined, {
        Authorization: 'Bearer s3cret',
      });
      expect(allowed.status).toBe(200);
      expect(secured.kubeconfig).toContain('token: "s3cret"');
    } finally {
      await secured.close();
    }
  });
});
