// The webhook server answers AdmissionReview and ConversionReview v1 over HTTPS: defaults become a JSON
// patch, rejections carry code, message and causes, and bad input of every kind is a clear denial while
// the server keeps serving.
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CertificateAuthority } from '../../lib/apiserver/index.js';
import {
  AdmissionRejectedError,
  WebhookServer,
  admissionHandler,
  converter,
  defaulter,
  jsonPatchDiff,
  validator,
} from '../../lib/webhooks/index.js';

const ca = new CertificateAuthority('webhook-test-ca');
const serving = ca.issue({ commonName: 'webhook', hosts: ['127.0.0.1'], usages: ['server'] });

type Widget = {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: { replicas?: number; size?: string };
};

const widgetDefaulter = defaulter<Widget>({
  group: 'example.com',
  versions: ['v1'],
  resource: 'widgets',
  default: (_ctx, obj) => {
    obj.spec ??= {};
    obj.spec.replicas ??= 1;
    return obj;
  },
});
const widgetValidator = validator<Widget>({
  group: 'example.com',
  versions: ['v1'],
  resource: 'widgets',
  validateCreate: (ctx, obj) => {
    if ((obj.spec?.replicas ?? 0) > 10) {
      throw AdmissionRejectedError.invalid([
        { field: 'spec.replicas', message: `Invalid value: ${obj.spec?.replicas}: must be at most 10` },
      ]);
    }
    ctx.warn('widgets are experimental');
    return obj.spec?.size === 'huge' ? ['size huge is deprecated'] : undefined;
  },
  validateDelete: () => {
    throw new Error('database unreachable');
  },
});
const garbage = admissionHandler({
  type: 'mutating',
  group: 'example.com',
  versions: ['v1'],
  resource: 'gadgets',
  path: '/garbage',
  handle: () => 42 as never,
});
const badDefaulter = defaulter({
  group: 'example.com',
  versions: ['v1'],
  resource: 'gizmos',
  default: () => 'nope' as never,
});
const widgetConverter = converter({
  group: 'example.com',
  kind: 'Widget',
  resource: 'widgets',
  hub: 'v2',
  spokes: {
    v1: {
      toHub: (o) => {
        const { replicas, ...spec } = (o.spec ?? {}) as Record<string, unknown>;
        return { ...o, spec: { ...spec, scale: { replicas } } };
      },
      fromHub: (o) => {
        const { scale, ...spec } = (o.spec ?? {}) as Record<string, unknown>;
        return { ...o, spec: { ...spec, replicas: (scale as { replicas?: number }).replicas } };
      },
    },
  },
});

let server: WebhookServer;

beforeAll(async () => {
  server = new WebhookServer({
    handlers: [widgetDefaulter, widgetValidator, garbage, badDefaulter, widgetConverter],
    certificate: serving,
    host: '127.0.0.1',
    port: 0,
    maxReviewBytes: 64 * 1024,
  });
  await server.start();
});
afterAll(async () => {
  await server.stop();
});

function post(path: string, body: string | Buffer, caPem = ca.cert): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}?timeout=5s`,
      { method: 'POST', ca: caPem, headers: { 'Content-Type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function review(operation: string, object: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      operation,
      userInfo: { username: 'admin' },
      object,
      ...extra,
    },
  });
}

const widget = (spec: Record<string, unknown>): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w' },
  spec,
});

describe('webhook server', () => {
  it('answers a defaulter with the JSON patch from the request object to the defaulted one', async () => {
    const { status, json } = await post(widgetDefaulter.path, review('CREATE', widget({ size: 's' })));
    expect(status).toBe(200);
    expect(json.response.uid).toBe('uid-1');
    expect(json.response.allowed).toBe(true);
    expect(json.response.patchType).toBe('JSONPatch');
    const ops = JSON.parse(Buffer.from(json.response.patch, 'base64').toString('utf8'));
    expect(ops).toEqual([{ op: 'add', path: '/spec/replicas', value: 1 }]);
  });

  it('sends no patch when the defaulter changes nothing', async () => {
    const { json } = await post(widgetDefaulter.path, review('CREATE', widget({ replicas: 3 })));
    expect(json.response).toEqual({ uid: 'uid-1', allowed: true });
  });

  it('denies with 422, the message and the field cause when the validator rejects', async () => {
    const { json } = await post(widgetValidator.path, review('CREATE', widget({ replicas: 11 })));
    expect(json.response.allowed).toBe(false);
    expect(json.response.status).toEqual({
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: 'Widget.example.com "w" is invalid: spec.replicas: Invalid value: 11: must be at most 10',
      details: {
        name: 'w',
        group: 'example.com',
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
  });

  it('returns warnings from ctx.warn and from the validator result', async () => {
    const { json } = await post(widgetValidator.path, review('CREATE', widget({ size: 'huge' })));
    expect(json.response.allowed).toBe(true);
    expect(json.response.warnings).toEqual(['widgets are experimental', 'size huge is deprecated']);
  });

  it('turns a handler that throws into a 500 denial saying so, and keeps serving', async () => {
    const { json } = await post(widgetValidator.path, review('DELETE', null, { oldObject: widget({}) }));
    expect(json.response).toMatchObject({
      uid: 'uid-1',
      allowed: false,
      status: { code: 500, reason: 'InternalError', message: 'webhook handler failed: database unreachable' },
    });
    const again = await post(widgetDefaulter.path, review('CREATE', widget({ replicas: 2 })));
    expect(again.json.response.allowed).toBe(true);
  });

  it('denies a garbage verdict and a defaulter returning a non-object, naming what came back', async () => {
    const raw = await post('/garbage', review('CREATE', widget({})));
    expect(raw.json.response.status.message).toBe(
      'webhook handler failed: the handler returned number 42, expected { allowed, … }',
    );
    const bad = await post(badDefaulter.path, review('CREATE', widget({})));
    expect(bad.json.response.status.message).toBe(
      'webhook handler failed: the defaulter returned the string "nope", expected the object',
    );
  });

  it('denies malformed reviews with 400 and what is wrong', async () => {
    const notJson = await post(widgetDefaulter.path, '{"request": {"uid": "u9", ');
    expect(notJson.json.response).toMatchObject({ uid: 'u9', allowed: false, status: { code: 400 } });
    expect(notJson.json.response.status.message).toMatch(/^malformed review: the body is not JSON/);
    const wrongKind = await post(
      widgetDefaulter.path,
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1beta1',
        kind: 'AdmissionReview',
        request: { uid: 'u2' },
      }),
    );
    expect(wrongKind.json.response).toMatchObject({
      uid: 'u2',
      allowed: false,
      status: {
        code: 400,
        message:
          'malformed AdmissionReview: apiVersion must be "admission.k8s.io/v1", got "admission.k8s.io/v1beta1"',
      },
    });
    const noObject = await post(widgetDefaulter.path, review('UPDATE', widget({})));
    expect(noObject.json.response.status.message).toBe(
      'malformed AdmissionReview: request.oldObject is required for UPDATE',
    );
  });

  it('denies a review over the size limit with 413 and the request uid, then serves the next one', async () => {
    const big = review('CREATE', widget({ blob: 'x'.repeat(100 * 1024) }));
    const { json } = await post(widgetDefaulter.path, big);
    expect(json.response).toMatchObject({
      uid: 'uid-1',
      allowed: false,
      status: { code: 413, reason: 'RequestEntityTooLarge' },
    });
    expect(json.response.status.message).toBe(
      "the review is larger than the webhook server's limit of 65536 bytes",
    );
    const next = await post(widgetDefaulter.path, review('CREATE', widget({ replicas: 1 })));
    expect(next.json.response.allowed).toBe(true);
  });

  it('answers 404 on a path with no handler', async () => {
    const { status, json } = await post('/nothing', '{}');
    expect(status).toBe(404);
    expect(json.message).toBe('no webhook handler on path /nothing');
  });

  it('converts hub and spoke both ways, keeping metadata, and fails clearly on an unknown version', async () => {
    const conversion = (desiredAPIVersion: string, objects: unknown[]) =>
      JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'c1', desiredAPIVersion, objects },
      });
    const v1 = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', uid: 'x', resourceVersion: '5' },
      spec: { replicas: 3, size: 's' },
    };
    const up = await post(widgetConverter.path, conversion('example.com/v2', [v1]));
    expect(up.json.response).toEqual({
      uid: 'c1',
      result: { status: 'Success' },
      convertedObjects: [
        {
          apiVersion: 'example.com/v2',
          kind: 'Widget',
          metadata: { name: 'w', uid: 'x', resourceVersion: '5' },
          spec: { size: 's', scale: { replicas: 3 } },
        },
      ],
    });
    const down = await post(
      widgetConverter.path,
      conversion('example.com/v1', up.json.response.convertedObjects),
    );
    expect(down.json.response.convertedObjects).toEqual([v1]);
    const unknown = await post(widgetConverter.path, conversion('example.com/v3', [v1]));
    expect(unknown.json.response.result).toEqual({
      status: 'Failure',
      message: 'conversion failed: version v3 is neither the hub (v2) nor a spoke',
    });
  });

  it('refuses a TLS client that does not trust its CA', async () => {
    const other = new CertificateAuthority('other');
    await expect(post(widgetDefaulter.path, '{}', other.cert)).rejects.toThrow();
  });

  it('rotates the serving certificate for new connections', async () => {
    const next = new CertificateAuthority('next-ca');
    server.setCertificate(next.issue({ commonName: 'webhook', hosts: ['127.0.0.1'], usages: ['server'] }));
    const { json } = await post(widgetDefaulter.path, review('CREATE', widget({ replicas: 1 })), next.cert);
    expect(json.response.allowed).toBe(true);
    server.setCertificate(serving);
  });
});

describe('jsonPatchDiff', () => {
  it('escapes keys, removes, adds and replaces arrays whose length changed', () => {
    expect(
      jsonPatchDiff(
        { metadata: { annotations: { 'a/b': '1', 'c~d': '2' } }, list: [1, 2], keep: [1, { x: 1 }] },
        { metadata: { annotations: { 'a/b': '3' } }, list: [1, 2, 3], keep: [1, { x: 2 }] },
      ),
    ).toEqual([
      { op: 'remove', path: '/metadata/annotations/c~0d' },
      { op: 'replace', path: '/metadata/annotations/a~1b', value: '3' },
      { op: 'replace', path: '/list', value: [1, 2, 3] },
      { op: 'replace', path: '/keep/1/x', value: 2 },
    ]);
  });
});
