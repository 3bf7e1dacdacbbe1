// Admission webhooks as kube-apiserver calls them, on both backends: the operator's WebhookServer (loopback
// HTTPS, a test CA in the configurations' caBundle) behind a MutatingWebhookConfiguration and a
// ValidatingWebhookConfiguration. A defaulter's patch is stored; a validator's rejection reaches kubectl
// with its message and field; warnings reach kubectl's stderr; a webhook that hangs past timeoutSeconds
// fails the write with failurePolicy Fail and is skipped with Ignore; dryRun reaches the webhook and a
// webhook with side effects cannot be configured at all (admissionregistration/v1 refuses it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CertificateAuthority } from '../../../lib/apiserver/index.js';
import {
  AdmissionRejectedError,
  WebhookServer,
  admissionHandler,
  defaulter,
  validator,
  type AdmissionRequest,
  type WebhookHandler,
} from '../../../lib/webhooks/index.js';
import { installCrd, kubeApi, removeCrd, type KubeApi } from '../support/kube-api.js';
import { kubectl, startTarget, uniqueName, type Target } from '../support/target.js';

const GROUP = `${uniqueName('wh')}.reconcilekit.test`;
const NS = 'default';
const ADMISSION = '/apis/admissionregistration.k8s.io/v1';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['replicas'],
                properties: {
                  replicas: { type: 'integer', minimum: 0 },
                  size: { type: 'string' },
                  mode: { type: 'string' },
                },
              },
            },
          },
        },
      },
    ],
  },
};

type Widget = { metadata: { name: string; labels?: Record<string, string> }; spec?: Record<string, any> };

const seen: AdmissionRequest[] = [];
const record = (ctx: { request: AdmissionRequest }): void => {
  seen.push(ctx.request);
};

const handlers: WebhookHandler[] = [
  defaulter<Widget>({
    group: GROUP,
    versions: ['v1'],
    resource: 'widgets',
    default: (ctx, obj) => {
      record(ctx);
      obj.spec ??= {};
      obj.spec.replicas ??= 1;
      obj.spec.size ??= 'small';
      return obj;
    },
  }),
  validator<Widget>({
    group: GROUP,
    versions: ['v1'],
    resource: 'widgets',
    validateCreate: (ctx, obj) => {
      record(ctx);
      if ((obj.spec?.replicas ?? 0) > 10) {
        throw AdmissionRejectedError.invalid([
          { field: 'spec.replicas', message: `Invalid value: ${obj.spec?.replicas}: must be at most 10` },
        ]);
      }
      return obj.spec?.size === 'huge' ? ['spec.size: huge widgets are deprecated'] : undefined;
    },
  }),
  admissionHandler({
    type: 'validating',
    group: GROUP,
    versions: ['v1'],
    resource: 'widgets',
    path: '/hang',
    handle: async (ctx) => {
      record(ctx);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      return { allowed: true };
    },
  }),
];

let target: Target;
let api: KubeApi;
let server: WebhookServer;
const ca = new CertificateAuthority('webhook-test-ca');
const caBundle = Buffer.from(ca.cert).toString('base64');
const configs: string[] = [];

function clientConfig(path: string): Record<string, unknown> {
  return { url: `${server.url}${path}`, caBundle };
}

function rules(operations = ['CREATE']) {
  return [{ operations, apiGroups: [GROUP], apiVersions: ['v1'], resources: ['widgets'] }];
}

async function configure(
  kind: 'mutating' | 'validating',
  webhooks: Record<string, unknown>[],
): Promise<string> {
  const name = uniqueName(`${kind}-test`);
  const resource = `${kind}webhookconfigurations`;
  const body = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks,
  };
  const r = await api('POST', `${ADMISSION}/${resource}`, body);
  expect(r.status, r.text).toBe(201);
  configs.push(`${resource}/${name}`);
  return `${resource}/${name}`;
}

async function unconfigure(ref: string): Promise<void> {
  await api('DELETE', `${ADMISSION}/${ref}`);
}

/** Waits until a dry-run create named `probe` reaches the webhook on `path` (a real server's informer lags). */
async function untilCalled(marker: string, labels: Record<string, string> = {}): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const name = uniqueName(`probe-${marker.toLowerCase()}`);
    await api('POST', `/apis/${GROUP}/v1/namespaces/${NS}/widgets?dryRun=All`, {
      apiVersion: `${GROUP}/v1`,
      kind: 'Widget',
      metadata: { name, labels: { probe: marker, ...labels } },
      spec: { replicas: 1 },
    });
    if (seen.some((r) => r.name === name)) return;
    if (Date.now() > deadline) throw new Error(`webhook ${marker} never called`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function widget(name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}): string {
  return JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name, labels }, spec });
}

beforeAll(async () => {
  server = new WebhookServer({
    handlers,
    certificate: ca.issue({ commonName: 'webhook', hosts: ['127.0.0.1'], usages: ['server'] }),
    host: '127.0.0.1',
    port: 0,
  });
  await server.start();
  target = await startTarget();
  api = kubeApi(target);
  await installCrd(api, crd);
});

afterAll(async () => {
  for (const ref of configs) await unconfigure(ref);
  await removeCrd(api, crd.metadata.name);
  await target.close();
  await server.stop();
});

describe('admission webhooks', () => {
  it('stores what a defaulter patched in on create, before schema validation', async () => {
    const ref = await configure('mutating', [
      {
        name: `default.${GROUP}`,
        clientConfig: clientConfig(handlers[0]!.path),
        rules: rules(['CREATE', 'UPDATE']),
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        objectSelector: { matchExpressions: [{ key: 'skip-default', operator: 'DoesNotExist' }] },
      },
    ]);
    await untilCalled('default');
    // `replicas` is required by the schema: only the defaulter makes this create valid.
    const created = await kubectl(target, ['create', '-f', '-', '-o', 'json'], widget('defaulted', {}));
    expect(created.stderr).toBe('');
    expect(JSON.parse(created.stdout).spec).toEqual({ replicas: 1, size: 'small' });
    const got = await kubectl(target, ['get', `widgets.${GROUP}`, 'defaulted', '-o', 'jsonpath={.spec}']);
    expect(JSON.parse(got.stdout)).toEqual({ replicas: 1, size: 'small' });
    const request = seen.find((r) => r.name === 'defaulted');
    expect(request).toMatchObject({
      operation: 'CREATE',
      namespace: NS,
      kind: { group: GROUP, version: 'v1', kind: 'Widget' },
      resource: { group: GROUP, version: 'v1', resource: 'widgets' },
      requestKind: { group: GROUP, version: 'v1', kind: 'Widget' },
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    });
    expect(request?.oldObject ?? null).toBeNull();
    // objectSelector: a widget labelled skip-default never reaches the defaulter, so it fails validation.
    const skipped = await kubectl(
      target,
      ['create', '-f', '-'],
      widget('skipped', {}, { 'skip-default': 'yes' }),
    );
    expect(skipped.code).not.toBe(0);
    expect(skipped.stderr).toContain('spec.replicas: Required value');
    await unconfigure(ref);
  });

  it('passes a validator rejection to kubectl with its message and field, and warnings to stderr', async () => {
    const ref = await configure('validating', [
      {
        name: `validate.${GROUP}`,
        clientConfig: clientConfig(handlers[1]!.path),
        rules: rules(),
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ]);
    await untilCalled('validate');
    const rejected = await kubectl(target, ['create', '-f', '-'], widget('too-many', { replicas: 11 }));
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toBe(
      'The Widget "too-many" is invalid: spec.replicas: Invalid value: 11: must be at most 10\n',
    );
    const raw = await api(
      'POST',
      `/apis/${GROUP}/v1/namespaces/${NS}/widgets`,
      JSON.parse(widget('too-many', { replicas: 11 })),
    );
    expect(raw.status).toBe(422);
    expect(raw.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      message: `admission webhook "validate.${GROUP}" denied the request: Widget.${GROUP} "too-many" is invalid: spec.replicas: Invalid value: 11: must be at most 10`,
      details: {
        name: 'too-many',
        group: GROUP,
        kind: 'Widget',
        causes: [
          {
            reason: 'FieldValueInvalid',
            field: 'spec.replicas',
            message: 'Invalid value: 11: must be at most 10',
          },
        ],
      },
    });
    const warned = await kubectl(
      target,
      ['create', '-f', '-'],
      widget('huge', { replicas: 1, size: 'huge' }),
    );
    expect(warned.code).toBe(0);
    expect(warned.stderr).toBe('Warning: spec.size: huge widgets are deprecated\n');
    await unconfigure(ref);
  });

  it('fails a write when a Fail webhook hangs past timeoutSeconds, and skips an Ignore one', async () => {
    const hook = (failurePolicy: string) => ({
      name: `hang-${failurePolicy.toLowerCase()}.${GROUP}`,
      clientConfig: clientConfig('/hang'),
      rules: rules(),
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 1,
      failurePolicy,
      objectSelector: { matchLabels: { hang: failurePolicy } },
    });
    const ref = await configure('validating', [hook('Fail'), hook('Ignore')]);
    await untilCalled('Fail', { hang: 'Fail' });
    const failed = await api(
      'POST',
      `/apis/${GROUP}/v1/namespaces/${NS}/widgets`,
      JSON.parse(widget('hangs', { replicas: 1 }, { hang: 'Fail' })),
    );
    const url = `${server.url}/hang?timeout=1s`;
    const text = `failed calling webhook "hang-fail.${GROUP}": failed to call webhook: Post "${url}": context deadline exceeded`;
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Internal error occurred: ${text}`,
      reason: 'InternalError',
      details: { causes: [{ message: text }] },
      code: 500,
    });
    const started = Date.now();
    const ignored = await kubectl(
      target,
      ['create', '-f', '-'],
      widget('ignored', { replicas: 1 }, { hang: 'Ignore' }),
    );
    expect(ignored.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    await unconfigure(ref);
  });

  it('tells a webhook about dryRun, and refuses to configure one with side effects', async () => {
    const refused = await api('POST', `${ADMISSION}/validatingwebhookconfigurations`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: uniqueName('side-effects') },
      webhooks: [
        {
          name: `side.${GROUP}`,
          clientConfig: clientConfig(handlers[1]!.path),
          rules: rules(),
          sideEffects: 'Some',
          admissionReviewVersions: ['v1'],
        },
      ],
    });
    expect(refused.status).toBe(422);
    expect((refused.body as { message: string }).message).toContain(
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
    );
    const ref = await configure('validating', [
      {
        name: `dry.${GROUP}`,
        clientConfig: clientConfig(handlers[1]!.path),
        rules: rules(),
        sideEffects: 'NoneOnDryRun',
        admissionReviewVersions: ['v1'],
      },
    ]);
    await untilCalled('validate');
    const dry = await kubectl(
      target,
      ['create', '--dry-run=server', '-f', '-'],
      widget('dry-one', { replicas: 2 }),
    );
    expect(dry.code).toBe(0);
    expect(seen.find((r) => r.name === 'dry-one')?.dryRun).toBe(true);
    const absent = await kubectl(target, ['get', `widgets.${GROUP}`, 'dry-one']);
    expect(absent.code).not.toBe(0);
    await unconfigure(ref);
  });
});
