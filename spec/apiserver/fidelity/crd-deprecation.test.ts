// Deprecated CRD versions: every request to a version marked `deprecated: true` answers a `299` Warning —
// the version's deprecationWarning, or `<group>/<version> <Kind> is deprecated; use <group>/<newest
// served, non-deprecated version> <Kind>` (k8s.io/apiextensions-apiserver/pkg/apiserver/
// customresource_handler.go, defaultDeprecationWarning), failed requests included; kubectl prints it as
// `Warning: …` on stderr. deprecationWarning itself is validated at CRD creation
// (pkg/apis/apiextensions/validation/validation.go).
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCrd, kubeApi, removeCrd, type KubeApi } from '../support/kube-api.js';
import { kubectl, startTarget, uniqueName, type Target } from '../support/target.js';

const GROUP = 'deprecation.reconcilekit.test';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CUSTOM = 'v1alpha1 gizmos go away in 2027 — use v1 (é ✓ "quoted")';
const DEFAULT = `${GROUP}/v1beta1 Gizmo is deprecated; use ${GROUP}/v1 Gizmo`;

const version = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  served: true,
  storage: name === 'v1',
  schema: {
    openAPIV3Schema: {
      type: 'object',
      properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
    },
  },
  ...extra,
});

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gizmos.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
    versions: [
      version('v1'),
      version('v1beta1', { deprecated: true }),
      version('v1alpha1', { deprecated: true, deprecationWarning: CUSTOM }),
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
  await removeCrd(api, `gizmos.${GROUP}`);
  await target.close();
});

const path = (v: string, rest = '') => `/apis/${GROUP}/${v}/namespaces/default/gizmos${rest}`;
const gizmo = (v: string, name: string) => ({
  apiVersion: `${GROUP}/${v}`,
  kind: 'Gizmo',
  metadata: { name },
  spec: { size: 1 },
});
/** The header value decoded as the UTF-8 bytes the server sent. */
const warningOf = (headers: Headers): string | null => {
  const value = headers.get('warning');
  return value === null ? null : Buffer.from(value, 'latin1').toString('utf8');
};

describe('requests to a deprecated version', () => {
  it('answer the default warning on reads, writes and failures', async () => {
    const name = uniqueName('beta');
    const expected = `299 - ${JSON.stringify(DEFAULT)}`;
    const created = await api('POST', path('v1beta1'), gizmo('v1beta1', name));
    expect(created.status, created.text).toBe(201);
    expect(warningOf(created.headers)).toBe(expected);
    for (const [method, url, status] of [
      ['GET', path('v1beta1'), 200],
      ['GET', path('v1beta1', `/${name}`), 200],
      ['GET', path('v1beta1', '/missing'), 404],
      ['GET', path('v1beta1', '?watch=1&timeoutSeconds=1'), 200],
      ['DELETE', path('v1beta1', `/${name}`), 200],
    ] as const) {
      const r = await api(method, url);
      expect(r.status, `${method} ${url}`).toBe(status);
      expect(warningOf(r.headers), `${method} ${url}`).toBe(expected);
    }
    const invalid = await api('POST', path('v1beta1'), gizmo('v1beta1', 'Not_Valid'));
    expect(invalid.status).toBe(422);
    expect(warningOf(invalid.headers)).toBe(expected);
  });

  it('answer the CRD’s own deprecationWarning, non-ASCII text intact', async () => {
    for (const url of [
      path('v1alpha1'),
      path('v1alpha1', '?watch=1&timeoutSeconds=1'),
      path('v1alpha1', '/missing'),
    ]) {
      const r = await api('GET', url);
      expect(r.status, url).toBe(url.endsWith('missing') ? 404 : 200);
      expect(warningOf(r.headers), url).toBe(`299 - ${JSON.stringify(CUSTOM)}`);
    }
    // kubectl decodes the header as UTF-8 and unquotes it, as client-go's ParseWarningHeader does.
    const k = await kubectl(target, ['get', `gizmos.v1alpha1.${GROUP}`, '-n', 'default']);
    expect(k.code, k.stderr).toBe(0);
    expect(k.stderr).toContain(`Warning: ${CUSTOM}`);
  });

  it('a version that is not deprecated answers no warning', async () => {
    const r = await api('GET', path('v1'));
    expect(r.status).toBe(200);
    expect(r.headers.get('warning')).toBeNull();
  });

  it('kubectl prints the warning on stderr', async () => {
    const r = await kubectl(target, ['get', `gizmos.v1beta1.${GROUP}`, '-n', 'default']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Warning: ${DEFAULT}`);
    const v1 = await kubectl(target, ['get', `gizmos.v1.${GROUP}`, '-n', 'default']);
    expect(v1.code, v1.stderr).toBe(0);
    expect(v1.stderr).not.toContain('Warning:');
  });

  it('client-node receives the Warning header', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(target.kubeconfig);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const info = await custom.listNamespacedCustomObjectWithHttpInfo({
      group: GROUP,
      version: 'v1beta1',
      namespace: 'default',
      plural: 'gizmos',
    });
    expect(info.httpStatusCode).toBe(200);
    expect(info.headers.warning).toBe(`299 - ${JSON.stringify(DEFAULT)}`);
  });
});

describe('deprecationWarning is validated at CRD creation', () => {
  const withWarning = (plural: string, warning: string, deprecated: boolean) => ({
    ...crd,
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      ...crd.spec,
      names: { plural, kind: plural.slice(0, 1).toUpperCase() + plural.slice(1, -1) },
      versions: [version('v1', { deprecated, deprecationWarning: warning })],
    },
  });
  const cases: [string, string, boolean, string][] = [
    ['alphas', 'custom', false, 'can only be set for deprecated versions'],
    [
      'betas',
      'line\nbreak',
      true,
      'must only contain printable UTF-8 characters; non-printable character found at index 4',
    ],
    ['gammas', 'x'.repeat(257), true, 'must be <= 256 characters long'],
  ];
  for (const [plural, warning, deprecated, message] of cases) {
    it(`rejects ${JSON.stringify(warning.slice(0, 12))} with 422: ${message}`, async () => {
      const r = await api('POST', CRDS, withWarning(plural, warning, deprecated));
      expect(r.status, r.text).toBe(422);
      const body = r.body as Record<string, any>;
      expect(body.details.causes).toContainEqual(
        expect.objectContaining({
          field: 'spec.versions[0].deprecationWarning',
          message: expect.stringContaining(message),
        }),
      );
    });
  }
});
