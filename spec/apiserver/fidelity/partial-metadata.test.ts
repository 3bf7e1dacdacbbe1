// Metadata-only reads (`Accept: application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1`): get,
// list and watch answer kube-apiserver's bodies, and a form that does not fit is a 406 with kube's message.
// Runs on the embedded server and, under make test-real, on kube-apiserver 1.34 with the same
// expectations (bodies normalised: uid, resourceVersion, timestamps, continue token, and the field sets of
// managedFields: the embedded server's lack kube's "." entries, a gap of its field manager that has
// nothing to do with the metadata-only form). Requests go through
// raw HTTPS with the target's kubeconfig (spec/apiserver/support/kube-api.ts): `kubectl get --raw` cannot
// set Accept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeApi, type KubeApi } from '../support/kube-api.js';
import { startTarget, uniqueName, type Target } from '../support/target.js';

const POM = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const POML = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const ns = uniqueName('pom');
const SECRETS = `/api/v1/namespaces/${ns}/secrets`;
let target: Target;
let api: KubeApi;

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
  const created = await api('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  expect(created.status, created.text).toBe(201);
  for (const name of ['a', 'b']) {
    const r = await api('POST', `${SECRETS}?fieldManager=fidelity`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, labels: { app: 'pom' }, annotations: { note: name } },
      type: 'Opaque',
      data: { key: Buffer.from('x'.repeat(64)).toString('base64') },
    });
    expect(r.status, r.text).toBe(201);
  }
}, 30_000);

afterAll(async () => {
  await api('DELETE', `/api/v1/namespaces/${ns}`);
  await target.close();
});

/** Replaces what differs from run to run and server to server with placeholders. */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'uid' && typeof v === 'string') out[key] = 'UID';
    else if (key === 'resourceVersion' && typeof v === 'string') out[key] = 'RV';
    else if ((key === 'creationTimestamp' || key === 'time') && typeof v === 'string') out[key] = 'TIME';
    else if (key === 'continue' && typeof v === 'string') out[key] = 'TOKEN';
    else if (key === 'fieldsV1') out[key] = 'FIELDS';
    // The empty list kube-apiserver >= 1.35 (and the embedded server) add to the initial-events-end
    // bookmark of a watch-list; 1.34 does not.
    else if (key === 'kubernetes.io/initial-events-list-blueprint') continue;
    else out[key] = normalise(v);
  }
  return out;
}

const managedFields = [
  {
    manager: 'fidelity',
    operation: 'Update',
    apiVersion: 'v1',
    time: 'TIME',
    fieldsType: 'FieldsV1',
    fieldsV1: 'FIELDS',
  },
];

const metadata = (name: string) => ({
  name,
  namespace: ns,
  uid: 'UID',
  resourceVersion: 'RV',
  creationTimestamp: 'TIME',
  labels: { app: 'pom' },
  annotations: { note: name },
  managedFields,
});

const partial = (name: string, version = 'v1') => ({
  kind: 'PartialObjectMetadata',
  apiVersion: `meta.k8s.io/${version}`,
  metadata: metadata(name),
});

const lines = (text: string): { type: string; object: Record<string, any> }[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { type: string; object: Record<string, any> });

/** A watch's events without the periodic bookmarks (when they come is up to the server). */
const events = (text: string) =>
  lines(text).filter(
    (e) => e.type !== 'BOOKMARK' || e.object.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true',
  );

const notAcceptable = (message: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason: 'NotAcceptable',
  code: 406,
});

describe('PartialObjectMetadata', () => {
  it('a get answers the metadata alone, in the version asked for', async () => {
    const r = await api('GET', `${SECRETS}/a`, undefined, undefined, { Accept: POM });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(normalise(r.body)).toEqual(partial('a'));
    const beta = await api('GET', `${SECRETS}/a`, undefined, undefined, {
      Accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1',
    });
    expect(normalise(beta.body)).toEqual(partial('a', 'v1beta1'));
  });

  it('a list answers a PartialObjectMetadataList, paginated like the list', async () => {
    const all = await api('GET', SECRETS, undefined, undefined, { Accept: POML });
    expect(all.status, all.text).toBe(200);
    expect(normalise(all.body)).toEqual({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: 'RV' },
      items: [partial('a'), partial('b')],
    });
    const page = await api('GET', `${SECRETS}?limit=1`, undefined, undefined, { Accept: POML });
    expect(normalise(page.body)).toEqual({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: 'RV', continue: 'TOKEN', remainingItemCount: 1 },
      items: [partial('a')],
    });
    const next = await api(
      'GET',
      `${SECRETS}?limit=1&continue=${encodeURIComponent(page.body.metadata.continue as string)}`,
      undefined,
      undefined,
      { Accept: POML },
    );
    expect(normalise(next.body)).toEqual({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: 'RV' },
      items: [partial('b')],
    });
  });

  it('an empty list has items: null (a typed empty list has [])', async () => {
    const r = await api('GET', `${SECRETS}?labelSelector=app%3Dnone`, undefined, undefined, { Accept: POML });
    expect(normalise(r.body)).toEqual({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: 'RV' },
      items: null,
    });
    const typed = await api('GET', `${SECRETS}?labelSelector=app%3Dnone`);
    expect(typed.body.items).toEqual([]);
  });

  it('a watch sends PartialObjectMetadata events and bookmarks', async () => {
    const list = await api('GET', SECRETS, undefined, undefined, { Accept: POML });
    const rv = list.body.metadata.resourceVersion as string;
    const watching = api(
      'GET',
      `${SECRETS}?watch=1&resourceVersion=${rv}&timeoutSeconds=2`,
      undefined,
      undefined,
      {
        Accept: POM,
      },
    );
    await new Promise((r) => setTimeout(r, 300));
    const patched = await api(
      'PATCH',
      `${SECRETS}/b?fieldManager=fidelity`,
      { metadata: { labels: { extra: 'yes' } } },
      'application/merge-patch+json',
    );
    expect(patched.status, patched.text).toBe(200);
    const w = await watching;
    expect(w.status).toBe(200);
    const [event, ...rest] = events(w.text);
    expect(rest).toEqual([]);
    expect(event?.type).toBe('MODIFIED');
    expect(event?.object.kind).toBe('PartialObjectMetadata');
    expect(event?.object.apiVersion).toBe('meta.k8s.io/v1');
    expect(event?.object.metadata.labels).toEqual({ app: 'pom', extra: 'yes' });
    expect(Object.keys(event?.object ?? {}).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    await api(
      'PATCH',
      `${SECRETS}/b?fieldManager=fidelity`,
      { metadata: { labels: { extra: null } } },
      'application/merge-patch+json',
    );
  });

  it('a watch-list streams PartialObjectMetadata ADDED events and the initial-events-end bookmark', async () => {
    const w = await api(
      'GET',
      `${SECRETS}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1`,
      undefined,
      undefined,
      { Accept: POM },
    );
    expect(w.status, w.text).toBe(200);
    expect(normalise(events(w.text))).toEqual([
      { type: 'ADDED', object: partial('a') },
      { type: 'ADDED', object: partial('b') },
      {
        type: 'BOOKMARK',
        object: {
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { resourceVersion: 'RV', annotations: { 'k8s.io/initial-events-end': 'true' } },
        },
      },
    ]);
  });

  it('a watch asking for the list form stays open and sends nothing', async () => {
    const w = await api(
      'GET',
      `${SECRETS}?watch=1&timeoutSeconds=1&allowWatchBookmarks=true`,
      undefined,
      undefined,
      {
        Accept: POML,
      },
    );
    expect(w.status).toBe(200);
    expect(w.text).toBe('');
  });

  it('a form that does not fit is 406 NotAcceptable with kube’s message', async () => {
    const listAsObject = await api('GET', SECRETS, undefined, undefined, { Accept: POM });
    expect(listAsObject.status).toBe(406);
    expect(listAsObject.body).toEqual(
      notAcceptable(
        'you requested PartialObjectMetadata, but the requested object is a list (*core.SecretList)',
      ),
    );
    const objectAsList = await api('GET', `${SECRETS}/a`, undefined, undefined, { Accept: POML });
    expect(objectAsList.status).toBe(406);
    expect(objectAsList.body).toEqual(
      notAcceptable(
        'you requested PartialObjectMetadataList, but the requested object is not a list (*core.Secret)',
      ),
    );
    for (const accept of [
      'application/json;as=Unknown;g=meta.k8s.io;v=v1',
      'application/json;as=PartialObjectMetadata',
      'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2',
    ]) {
      const r = await api('GET', `${SECRETS}/a`, undefined, undefined, { Accept: accept });
      expect(r.status, accept).toBe(406);
      expect(r.body).toEqual(
        notAcceptable(
          'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
        ),
      );
    }
  });

  it('an unknown form followed by plain JSON answers the object; a missing object is 404 first', async () => {
    const r = await api('GET', `${SECRETS}/a`, undefined, undefined, {
      Accept: 'application/json;as=Unknown;g=meta.k8s.io;v=v1, application/json',
    });
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('Secret');
    expect(r.body.data).toBeDefined();
    const missing = await api('GET', `${SECRETS}/nope`, undefined, undefined, { Accept: POM });
    expect(missing.status).toBe(404);
  });

  it('tables are unaffected', async () => {
    const r = await api('GET', SECRETS, undefined, undefined, {
      Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1',
    });
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('Table');
    expect(r.body.rows.map((row: { cells: unknown[] }) => row.cells[0])).toEqual(['a', 'b']);
  });
});
