// Status texts as kube-apiserver v1.34 writes them, checked on the embedded server and (make test-real)
// on kube-apiserver: each expectation names the kube source that produces it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrd, kubeApi, removeCrd, type KubeApi } from '../support/kube-api.js';
import { E2E, startTarget, uniqueName, type Target } from '../support/target.js';

const CM = '/api/v1/namespaces/default/configmaps';
const GROUP = 'messages.reconcilekit.test';
const THINGS = `/apis/${GROUP}/v1/namespaces/default/things`;
let target: Target;
let api: KubeApi;
const names: string[] = [];

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
  for (let i = 0; i < 3; i++) {
    const name = uniqueName('msg');
    names.push(name);
    expect((await api('POST', CM, { metadata: { name, labels: { msg: 'page' } } })).status).toBe(201);
  }
  await installCrd(api, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `things.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'things', singular: 'thing', kind: 'Thing' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  });
}, 30_000);

afterAll(async () => {
  await removeCrd(api, `things.${GROUP}`);
  for (const name of names) await api('DELETE', `${CM}/${name}`);
  await target.close();
});

const token = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('list options (apimachinery meta/internalversion/validation ValidateListOptions)', () => {
  it.each([
    [
      'resourceVersionMatch=Exact',
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      'resourceVersionMatch=Bogus&resourceVersion=1',
      'resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""',
    ],
    [
      'resourceVersionMatch=Exact&resourceVersion=0',
      'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ],
    [
      'resourceVersionMatch=Exact&resourceVersion=5&continue=abc',
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
    ],
    [
      'watch=1&resourceVersionMatch=Exact&resourceVersion=5',
      '[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    ],
  ])('%s → 422', async (query, detail) => {
    const r = await api('GET', `${CM}?${query}`);
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(`ListOptions.meta.k8s.io "" is invalid: ${detail}`);
    expect(r.body.details).toMatchObject({ group: 'meta.k8s.io', kind: 'ListOptions' });
    expect(r.body.details.name).toBeUndefined();
  });
});

describe('continue tokens (apiserver pkg/storage/continue.go, interfaces.go)', () => {
  it.each([
    ['abc', "invalid character 'i' looking for beginning of value"],
    [`${token({ v: 'meta.k8s.io/v1', rv: 5, start: 'a' })}=`, 'illegal base64 data at input byte 55'],
    [
      token({ v: 'meta.k8s.io/v2', rv: 5, start: 'a' }),
      'server does not recognize this encoded version meta.k8s.io/v2',
    ],
    [
      token({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' }),
      'incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    ],
    [token({ v: 'meta.k8s.io/v1', rv: 5, start: '' }), 'encoded start key empty (version meta.k8s.io/v1)'],
    [
      token({ v: 'meta.k8s.io/v1', rv: '5', start: 'a' }),
      'json: cannot unmarshal string into Go struct field continueToken.rv of type int64',
    ],
  ])('a malformed token → 400 (%s)', async (value, why) => {
    const r = await api('GET', `${CM}?limit=1&continue=${value}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(`invalid continue token: continue key is not valid: ${why}`);
  });

  it('pages with kube-shaped tokens, and an expired one → 410 with a token that continues from now', async () => {
    const first = await api('GET', `${CM}?limit=1&labelSelector=msg%3Dpage`);
    expect(first.status).toBe(200);
    const next = first.body.metadata.continue as string;
    const decoded = JSON.parse(Buffer.from(next, 'base64url').toString('utf8'));
    expect(decoded).toMatchObject({
      v: 'meta.k8s.io/v1',
      start: `/${first.body.items[0].metadata.name}\u0000`,
    });
    const second = await api('GET', `${CM}?limit=1&labelSelector=msg%3Dpage&continue=${next}`);
    expect(second.status).toBe(200);
    expect(second.body.items[0].metadata.name > first.body.items[0].metadata.name).toBe(true);
    // rv 2: long compacted on a real server that has run for a while (etcd compacts every 5 minutes);
    // never retained by the embedded one.
    const old = await api(
      'GET',
      `${CM}?limit=1&continue=${token({ v: 'meta.k8s.io/v1', rv: 2, start: 'a\u0000' })}`,
    );
    if (E2E && old.status !== 410) return; // a young real server has not compacted rv 2 yet
    expect(old.status).toBe(410);
    expect(old.body.reason).toBe('Expired');
    expect(old.body.message).toBe(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    );
    const offered = JSON.parse(Buffer.from(old.body.metadata.continue, 'base64url').toString('utf8'));
    expect(offered).toEqual({ v: 'meta.k8s.io/v1', rv: -1, start: 'a\u0000' });
    const resumed = await api('GET', `${CM}?limit=1&continue=${old.body.metadata.continue}`);
    expect(resumed.status).toBe(200);
  });
});

describe('selectors (apimachinery pkg/labels/selector.go, pkg/apis/core/v1/conversion.go)', () => {
  it.each([
    ['labelSelector=a%20in', "unable to parse requirement: found '' expected: '('"],
    ['labelSelector=a%3D%28', "unable to parse requirement: found '(', expected: identifier"],
    ['labelSelector=%21', "unable to parse requirement: found '', expected: identifier"],
    ['labelSelector=a%3Db%20c', "found 'c', expected: ',' or 'end of string'"],
    [
      'labelSelector=-a%3Db',
      `unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
    [
      'fieldSelector=spec.foo%3Dbar',
      '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    ['fieldSelector=metadata.name', "invalid selector: 'metadata.name'; can't understand 'metadata.name'"],
  ])('configmaps?%s → 400', async (query, message) => {
    const r = await api('GET', `${CM}?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(message);
  });

  it.each([
    ['/api/v1/pods', 'field label not supported: spec.foo'],
    ['/api/v1/secrets', 'field label not supported: spec.foo'],
    ['/apis/batch/v1/jobs', 'field label "spec.foo" not supported for Job'],
    [
      '/apis/apps/v1/deployments',
      '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
    [
      '/apis/apps/v1/replicasets',
      '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
    ],
  ])('an unknown field label on %s → 400 with that kind’s text', async (path, message) => {
    const r = await api('GET', `${path}?fieldSelector=spec.foo%3Dbar`);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(message);
  });
});

describe('bodies (apiserver endpoints/handlers/rest.go transformDecodeError, patch.go)', () => {
  const post = (body: string) => api('POST', CM, body);

  it.each([
    [
      '{"apiVersion":"v1","kind":"ConfigMap",',
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Con ...)',
    ],
    [
      'not json',
      "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u') (6e6f74206a736f6e)",
    ],
    [
      '[1]',
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)',
    ],
  ])('invalid JSON %j → 400', async (body, message) => {
    const r = await post(body);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(message);
  });

  it.each([
    [
      { apiVersion: 'v1', kind: 'Secret' },
      'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    ],
    [
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      'Deployment in version "v1" cannot be handled as a ConfigMap: converting (v1.Deployment) to (core.ConfigMap): unknown conversion',
    ],
    [
      { apiVersion: 'apps/v1', kind: 'ConfigMap' },
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:110"',
    ],
    [
      { apiVersion: 'v1', kind: 'Foo' },
      'Foo in version "v1" cannot be handled as a ConfigMap: no kind "Foo" is registered for version "v1" in scheme "pkg/runtime/scheme.go:110"',
    ],
  ])('a body of another kind (%o) → 400', async (typeMeta, message) => {
    const r = await post(JSON.stringify({ ...typeMeta, metadata: { name: uniqueName('kind') } }));
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(message);
    const put = await api('PUT', `${CM}/${names[0]}`, { ...typeMeta, metadata: { name: names[0] } });
    expect(put.status).toBe(400);
    expect(put.body.message).toBe(message);
  });

  it.each([
    ['application/merge-patch+json', 'error decoding patch: unexpected end of JSON input'],
    ['application/json-patch+json', 'error decoding patch: unexpected end of JSON input'],
    ['application/strategic-merge-patch+json', 'unexpected end of JSON input'],
  ])('an invalid %s body → 400', async (contentType, message) => {
    const r = await api('PATCH', `${CM}/${names[0]}`, '{"data":', contentType);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(message);
  });
});

describe('custom resource bodies (apiextensions-apiserver customresource_handler.go)', () => {
  it('a body of another kind → 422 on kind; invalid JSON → 400 naming the CRD kind', async () => {
    const name = uniqueName('other');
    const r = await api('POST', THINGS, { apiVersion: `${GROUP}/v1`, kind: 'Other', metadata: { name } });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      `Other.${GROUP} "${name}" is invalid: kind: Invalid value: "Other": must be Thing`,
    );
    expect(r.body.details).toMatchObject({ name, group: GROUP, kind: 'Other' });
    const bad = await api('POST', THINGS, 'not json');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      "the object provided is unrecognized (must be of type Thing): couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u') (6e6f74206a736f6e)",
    );
  });
});

describe('uid and resourceVersion preconditions (registry/generic/registry/store.go, storage/errors.go)', () => {
  const ZERO = '00000000-0000-0000-0000-000000000000';

  it('DELETE with preconditions that do not hold → 409 naming the kind', async () => {
    const name = names[1] ?? '';
    const current = await api('GET', `${CM}/${name}`);
    const uid = await api('DELETE', `${CM}/${name}`, { preconditions: { uid: ZERO } }, 'application/json', {
      'Content-Length': String(JSON.stringify({ preconditions: { uid: ZERO } }).length),
    });
    expect(uid.status).toBe(409);
    expect(uid.body.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "${name}": the UID in the precondition (${ZERO}) does not match the UID in record (${current.body.metadata.uid}). The object might have been deleted and then recreated`,
    );
    expect(uid.body.details).toEqual({ name, kind: 'ConfigMap' });
    const rvBody = JSON.stringify({ preconditions: { resourceVersion: '1' } });
    const rv = await api('DELETE', `${CM}/${name}`, rvBody, 'application/json', {
      'Content-Length': String(rvBody.length),
    });
    expect(rv.status).toBe(409);
    expect(rv.body.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "${name}": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${current.body.metadata.resourceVersion}). The object might have been modified`,
    );
  });

  it('PUT with another uid → 409 StorageError; PATCH changing it → 422 immutable', async () => {
    const name = names[2] ?? '';
    const current = await api('GET', `${CM}/${name}`);
    const put = await api('PUT', `${CM}/${name}`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, uid: ZERO },
    });
    expect(put.status).toBe(409);
    expect(put.body.message).toBe(
      `Operation cannot be fulfilled on configmaps "${name}": StorageError: invalid object, Code: 4, Key: /registry/configmaps/default/${name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${ZERO}, UID in object meta: ${current.body.metadata.uid}`,
    );
    const patch = await api(
      'PATCH',
      `${CM}/${name}`,
      { metadata: { uid: ZERO } },
      'application/merge-patch+json',
    );
    expect(patch.status).toBe(422);
    expect(patch.body.message).toBe(
      `ConfigMap "${name}" is invalid: metadata.uid: Invalid value: "${ZERO}": field is immutable`,
    );
    expect(patch.body.details.causes[0]).toEqual({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${ZERO}": field is immutable`,
      field: 'metadata.uid',
    });
  });

  it('a custom resource PUT with another uid names its etcd key under the group', async () => {
    const name = uniqueName('thing');
    expect(
      (await api('POST', THINGS, { apiVersion: `${GROUP}/v1`, kind: 'Thing', metadata: { name } })).status,
    ).toBe(201);
    const put = await api('PUT', `${THINGS}/${name}`, {
      apiVersion: `${GROUP}/v1`,
      kind: 'Thing',
      metadata: { name, uid: ZERO },
    });
    expect(put.status).toBe(409);
    expect(put.body.message).toContain(
      `StorageError: invalid object, Code: 4, Key: /registry/${GROUP}/things/default/${name}, ResourceVersion: 0`,
    );
  });
});
