// Status codes and messages as kube-apiserver v1.34 answers them; each expectation names its source.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrd, kubeApi, removeCrd, type KubeApi } from '../support/kube-api.js';
import { startTarget, uniqueName, type Target } from '../support/target.js';

const GROUP = 'status.reconcilekit.test';
const CM = '/api/v1/namespaces/default/configmaps';
const THINGS = `/apis/${GROUP}/v1/namespaces/default/things`;

let target: Target;
let api: KubeApi;

beforeAll(async () => {
  target = await startTarget();
  api = kubeApi(target);
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
  await target.close();
});

describe('status codes and messages', () => {
  it('answers 415 to a text/plain body (k8s.io/apiserver/pkg/endpoints/handlers/create.go → negotiation)', async () => {
    const body = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: uniqueName('plain') },
    });
    const r = await api('POST', CM, body, 'text/plain');
    expect(r.status).toBe(415);
    expect(r.body.reason).toBe('UnsupportedMediaType');
    expect(r.body.message).toContain('the body of the request was in an unknown format');
  });

  it('answers PATCH on a collection: 405 for built-ins, 400 for custom resources (customresource_handler.go)', async () => {
    const builtin = await api('PATCH', CM, { metadata: {} }, 'application/merge-patch+json');
    expect(builtin.status).toBe(405);
    const custom = await api('PATCH', THINGS, { metadata: {} }, 'application/merge-patch+json');
    expect(custom.status).toBe(400);
    expect(custom.body.message).toBe('name must be provided');
  });

  it('refuses to delete default, kube-system and kube-public (plugin/namespace/lifecycle/admission.go)', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public']) {
      const r = await api('DELETE', `/api/v1/namespaces/${ns}`);
      expect(r.status, ns).toBe(403);
      expect(r.body.reason).toBe('Forbidden');
      expect(r.body.message).toBe(`namespaces "${ns}" is forbidden: this namespace may not be deleted`);
    }
  });

  it('answers an unserved API group with a plain-text 404 page not found (server/mux/pathrecorder.go)', async () => {
    for (const path of [
      '/apis/nothing.example.com/v1/foos',
      '/apis/nothing.example.com',
      `/apis/${GROUP}/v9`,
    ]) {
      const r = await api('GET', path);
      expect(r.status, path).toBe(404);
      expect(r.text, path).toBe('404 page not found\n');
    }
    const known = await api('GET', `/apis/${GROUP}/v1/namespaces/default/nothings`);
    expect(known.status).toBe(404);
    expect(known.body.kind).toBe('Status');
  });

  it('answers 400 to a PUT whose body name differs from the URL, even when the object is absent (handlers/update.go)', async () => {
    const r = await api('PUT', `${CM}/${uniqueName('absent')}`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'other' },
    });
    expect(r.status).toBe(400);
    expect(r.body.reason).toBe('BadRequest');
  });

  it('serves sendInitialEvents without allowWatchBookmarks (apis/meta/internalversion/validation)', async () => {
    const name = uniqueName('wl');
    expect((await api('POST', CM, { metadata: { name } })).status).toBe(201);
    const r = await api(
      'GET',
      `${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1&fieldSelector=metadata.name%3D${name}`,
    );
    expect(r.status).toBe(200);
    const events = r.text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
    expect(events[0]?.type).toBe('ADDED');
    expect(events[0]?.object.metadata.name).toBe(name);
  }, 10_000);
});
