// A CRD with two versions and `conversion.strategy: Webhook`, on both backends: objects are stored in v2
// (the storage version) and served in the version asked for, through the operator's converter (hub v2,
// spoke v1) on its WebhookServer over loopback TLS — create in v1, read in v2, list and watch in both.
/* eslint-disable @typescript-eslint/no-unsafe-return -- wire data read back from lists and watches */
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CertificateAuthority } from '../../../lib/apiserver/index.js';
import { WebhookServer, converter } from '../../../lib/webhooks/index.js';
import { installCrd, kubeApi, removeCrd, type KubeApi } from '../support/kube-api.js';
import { eventually, kubectl, startTarget, uniqueName, type Target } from '../support/target.js';

const GROUP = `${uniqueName('conv')}.reconcilekit.test`;
const NS = 'default';

const widgetConverter = converter({
  group: GROUP,
  kind: 'Widget',
  resource: 'widgets',
  hub: 'v2',
  spokes: {
    v1: {
      toHub: ({ spec, ...rest }) => {
        const { replicas, ...others } = (spec ?? {}) as Record<string, unknown>;
        return { ...rest, spec: { ...others, scale: { replicas } } };
      },
      fromHub: ({ spec, ...rest }) => {
        const { scale, ...others } = (spec ?? {}) as { scale?: { replicas?: number } };
        return { ...rest, spec: { ...others, replicas: scale?.replicas } };
      },
    },
  },
});

const ca = new CertificateAuthority('conversion-test-ca');
let server: WebhookServer;
let target: Target;
let api: KubeApi;

function crd(): Record<string, unknown> {
  const schema = (spec: Record<string, unknown>) => ({
    openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } },
  });
  return {
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
          storage: false,
          schema: schema({ replicas: { type: 'integer' }, color: { type: 'string' } }),
        },
        {
          name: 'v2',
          served: true,
          storage: true,
          schema: schema({
            scale: { type: 'object', properties: { replicas: { type: 'integer' } } },
            color: { type: 'string' },
          }),
        },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: {
            url: `${server.url}${widgetConverter.path}`,
            caBundle: Buffer.from(ca.cert).toString('base64'),
          },
        },
      },
    },
  };
}

const v1 = (name: string, replicas: number) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name, namespace: NS },
  spec: { replicas, color: 'red' },
});

/** Opens a raw watch and collects its events. */
function watch(version: string): { events: any[]; stop: () => void } {
  const kc = new KubeConfig();
  kc.loadFromString(target.kubeconfig);
  const base = kc.getCurrentCluster()?.server ?? target.url;
  const url = new URL(`${base}/apis/${GROUP}/${version}/namespaces/${NS}/widgets?watch=true`);
  const events: any[] = [];
  let buffer = '';
  let stop = (): void => undefined;
  void (async () => {
    const options: Record<string, any> = { headers: { Accept: 'application/json' } };
    await kc.applyToHTTPSOptions(options);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, options, (res) => {
      res.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffer.slice(0, nl)));
          buffer = buffer.slice(nl + 1);
        }
      });
    });
    req.on('error', () => undefined);
    req.end();
    stop = () => req.destroy();
  })();
  return {
    events,
    stop: () => {
      stop();
    },
  };
}

beforeAll(async () => {
  server = new WebhookServer({
    handlers: [widgetConverter],
    certificate: ca.issue({ commonName: 'webhook', hosts: ['127.0.0.1'], usages: ['server'] }),
    host: '127.0.0.1',
    port: 0,
  });
  await server.start();
  target = await startTarget();
  api = kubeApi(target);
  await installCrd(api, crd());
});

afterAll(async () => {
  await removeCrd(api, `widgets.${GROUP}`);
  await target.close();
  await server.stop();
});

describe('conversion webhook', () => {
  it('serves an object created in v1 in v2 and v1, in gets, lists and watches', async () => {
    const watchV1 = watch('v1');
    const watchV2 = watch('v2');
    const created = await kubectl(
      target,
      ['create', '-f', '-', '-o', 'json'],
      JSON.stringify(v1('first', 3)),
    );
    expect(created.stderr).toBe('');
    expect(JSON.parse(created.stdout)).toMatchObject({
      apiVersion: `${GROUP}/v1`,
      spec: { replicas: 3, color: 'red' },
    });
    const asV2 = await api('GET', `/apis/${GROUP}/v2/namespaces/${NS}/widgets/first`);
    expect(asV2.status).toBe(200);
    expect(asV2.body).toMatchObject({
      apiVersion: `${GROUP}/v2`,
      spec: { scale: { replicas: 3 }, color: 'red' },
    });
    expect(asV2.body.spec.replicas).toBeUndefined();
    const asV1 = await kubectl(target, [
      'get',
      `widgets.v1.${GROUP}`,
      'first',
      '-o',
      'jsonpath={.spec.replicas}',
    ]);
    expect(asV1.stdout).toBe('3');
    await kubectl(target, ['create', '-f', '-'], JSON.stringify(v1('second', 5)));
    const listV2 = await api('GET', `/apis/${GROUP}/v2/namespaces/${NS}/widgets`);
    expect(listV2.body.items.map((i: any) => [i.apiVersion, i.metadata.name, i.spec.scale.replicas])).toEqual(
      [
        [`${GROUP}/v2`, 'first', 3],
        [`${GROUP}/v2`, 'second', 5],
      ],
    );
    const listV1 = await api('GET', `/apis/${GROUP}/v1/namespaces/${NS}/widgets`);
    expect(listV1.body.items.map((i: any) => [i.apiVersion, i.metadata.name, i.spec.replicas])).toEqual([
      [`${GROUP}/v1`, 'first', 3],
      [`${GROUP}/v1`, 'second', 5],
    ]);
    // A merge patch in v1 applies to the v1 shape and is stored as v2.
    const patched = await kubectl(target, [
      'patch',
      `widgets.v1.${GROUP}`,
      'second',
      '--type=merge',
      '-p',
      '{"spec":{"replicas":7}}',
    ]);
    expect(patched.code).toBe(0);
    const afterPatch = await api('GET', `/apis/${GROUP}/v2/namespaces/${NS}/widgets/second`);
    expect(afterPatch.body.spec.scale).toEqual({ replicas: 7 });
    const seen = (w: { events: any[] }, name: string, type: string) =>
      w.events.find((e) => e.type === type && e.object.metadata.name === name)?.object;
    await eventually(
      () =>
        seen(watchV1, 'second', 'MODIFIED') !== undefined &&
        seen(watchV2, 'second', 'MODIFIED') !== undefined,
      10_000,
      'watch events',
    );
    expect(seen(watchV1, 'first', 'ADDED')).toMatchObject({
      apiVersion: `${GROUP}/v1`,
      spec: { replicas: 3 },
    });
    expect(seen(watchV2, 'first', 'ADDED')).toMatchObject({
      apiVersion: `${GROUP}/v2`,
      spec: { scale: { replicas: 3 } },
    });
    expect(seen(watchV1, 'second', 'MODIFIED')).toMatchObject({
      apiVersion: `${GROUP}/v1`,
      spec: { replicas: 7 },
    });
    expect(seen(watchV2, 'second', 'MODIFIED')).toMatchObject({
      apiVersion: `${GROUP}/v2`,
      spec: { scale: { replicas: 7 } },
    });
    watchV1.stop();
    watchV2.stop();
    const deleted = await kubectl(target, ['delete', `widgets.v1.${GROUP}`, 'first', 'second']);
    expect(deleted.code).toBe(0);
  });
});
