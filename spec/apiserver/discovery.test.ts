// Discovery, OpenAPI, version and health endpoints.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetCrd } from './support/fixtures.js';
import { api } from './support/http.js';
import { E2E, startTarget, type Target } from './support/target.js';

let target: Target;
let url: string;

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

describe.skipIf(E2E)('discovery', () => {
  it('serves legacy discovery with main resources before their subresources', async () => {
    const api1 = await api(url, 'GET', '/api');
    expect(api1.body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const core = await api(url, 'GET', '/api/v1');
    const coreNames: string[] = core.body.resources.map((r: { name: string }) => r.name);
    expect(coreNames).toEqual(
      expect.arrayContaining([
        'namespaces',
        'configmaps',
        'secrets',
        'pods',
        'events',
        'namespaces/finalize',
      ]),
    );
    const groups = await api(url, 'GET', '/apis');
    const groupNames: string[] = groups.body.groups.map((g: { name: string }) => g.name);
    expect(groupNames).toEqual(
      expect.arrayContaining([
        'apps',
        'batch',
        'coordination.k8s.io',
        'events.k8s.io',
        'rbac.authorization.k8s.io',
        'apiextensions.k8s.io',
        'example.com',
      ]),
    );
    const widgets = await api(url, 'GET', '/apis/example.com/v1');
    expect(widgets.body.resources.map((r: { name: string }) => r.name)).toEqual([
      'widgets',
      'widgets/status',
      'widgets/scale',
    ]);
    expect(widgets.body.resources[0]).toMatchObject({
      kind: 'Widget',
      namespaced: true,
      singularName: 'widget',
      shortNames: ['wd'],
    });
    const group = await api(url, 'GET', '/apis/example.com');
    expect(group.body).toMatchObject({
      kind: 'APIGroup',
      name: 'example.com',
      preferredVersion: { groupVersion: 'example.com/v1' },
    });
  });

  it('serves aggregated discovery with the content type client-go parses by', async () => {
    for (const v of ['v2', 'v2beta1']) {
      const r = await api(url, 'GET', '/apis', undefined, undefined, {
        Accept: `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList,application/json`,
      });
      expect(r.headers.get('content-type')).toBe(
        `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`,
      );
      expect(r.body.apiVersion).toBe(`apidiscovery.k8s.io/${v}`);
      const example = r.body.items.find(
        (i: { metadata: { name: string } }) => i.metadata.name === 'example.com',
      );
      expect(example.versions[0].resources[0]).toMatchObject({
        resource: 'widgets',
        scope: 'Namespaced',
        responseKind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      });
      expect(
        example.versions[0].resources[0].subresources.map((s: { subresource: string }) => s.subresource),
      ).toEqual(['status', 'scale']);
    }
    const core = await api(url, 'GET', '/api', undefined, undefined, {
      Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    expect(core.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['']);
  });

  it('answers /openapi/v2 with a protobuf document, /version, and health checks', async () => {
    const res = await fetch(`${url}/openapi/v2`, {
      headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    });
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 5)).toEqual(Buffer.from([0x0a, 0x03, 0x32, 0x2e, 0x30]));
    const version = await api(url, 'GET', '/version');
    expect(version.body).toMatchObject({ major: '1', gitVersion: expect.stringMatching(/^v1\./) });
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const r = await fetch(url + path);
      expect(r.status).toBe(200);
      expect(await r.text()).toBe('ok');
    }
  });
});
