// The API server's 299 Warning headers (here: a CRD version marked deprecated, with its deprecationWarning,
// which the embedded server sends on every request to it as kube-apiserver does) reach a warning handler:
// by default each distinct text is logged once and every warning is counted; a handler of the user's
// replaces that, and `false` drops them.
import { Writable } from 'node:stream';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';
import { Framework } from '../../lib/crud/framework.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import { API_WARNINGS_METRIC, parseWarningHeaders, type ApiWarning } from '../../lib/kube/api-warnings.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { createLogger } from '../../lib/observability/logger.js';
import { REAL_BACKEND } from '../real/real-backend.js';
import { RecordingResource, type Widget } from '../crud/harness.js';

const GROUP = 'warn.reconcilekit.io';
const TEXT = 'warn.reconcilekit.io/v1beta1 Gizmo is deprecated and goes in 2027; use v1';
const GIZMOS = { apiVersion: `${GROUP}/v1beta1`, kind: 'Gizmo', plural: 'gizmos' } as const;

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gizmos.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
    versions: ['v1', 'v1beta1'].map((name) => ({
      name,
      served: true,
      storage: name === 'v1',
      ...(name === 'v1beta1' ? { deprecated: true, deprecationWarning: TEXT } : {}),
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    })),
  },
};

function capture(): { lines: { level: string; message: string }[]; logger: ReturnType<typeof createLogger> } {
  const lines: { level: string; message: string }[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const text of String(chunk).split('\n').filter(Boolean))
        lines.push(JSON.parse(text) as { level: string; message: string });
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', stream }) };
}

async function counter(registry: Registry): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === API_WARNINGS_METRIC);
  return m?.values.reduce((sum, v) => sum + v.value, 0) ?? 0;
}

describe('parseWarningHeaders', () => {
  it('reads several warnings per value, escapes, dates and UTF-8, and keeps code 299 only', () => {
    const utf8 = Buffer.from('299 - "größe is deprecated"', 'utf8').toString('latin1');
    expect(
      parseWarningHeaders([
        '299 - "a, b \\"quoted\\" and \\\\", 299 kube-apiserver "second" "Wed, 21 Oct 2015 07:28:00 GMT"',
        '199 - "not persistent"',
        utf8,
        'garbage',
      ]),
    ).toEqual<ApiWarning[]>([
      { code: 299, agent: '-', text: 'a, b "quoted" and \\' },
      { code: 299, agent: 'kube-apiserver', text: 'second' },
      { code: 299, agent: '-', text: 'größe is deprecated' },
    ]);
  });
});

describe.skipIf(REAL_BACKEND)('API warnings from a deprecated CRD version', () => {
  let server: ApiServer | undefined;
  let fw: Framework<Widget> | undefined;
  let admin: ObjectClient | undefined;
  afterEach(async () => {
    await fw?.stop().catch(() => undefined);
    fw = undefined;
    admin?.close();
    await server?.close();
    server = undefined;
  });

  async function setUp(): Promise<KubeConfig> {
    server = await startApiServer({ host: '127.0.0.1', port: 0 });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(server.kubeconfig);
    admin = new ObjectClient({ kubeConfig });
    await admin.create(CRD);
    for (let i = 0; i < 50 && (await admin.resolve(GIZMOS).catch(() => undefined)) === undefined; i++)
      await new Promise((r) => setTimeout(r, 50));
    return kubeConfig;
  }

  const gizmo = (name: string): KubernetesObject => ({
    apiVersion: GIZMOS.apiVersion,
    kind: 'Gizmo',
    metadata: { name, namespace: 'default' },
  });

  it('logs each text once for many requests and counts every one', async () => {
    const kubeConfig = await setUp();
    const { lines, logger } = capture();
    const registry = new Registry();
    const resource = new RecordingResource();
    fw = new Framework<Widget>({
      name: 'warned',
      kubeConfig,
      resource: GIZMOS,
      resourceSets: [new ResourceSet<Widget>({ resources: [resource] })],
      registry,
      logger,
      healthServer: false,
    });
    await fw.start();
    // The list/watch of v1beta1 and each object's finalizer patch are requests to the deprecated version.
    for (const name of ['a', 'b', 'c']) await admin?.create(gizmo(name));
    const deadline = Date.now() + 5_000;
    while (resource.calls.filter((c) => c.op === 'create').length < 3 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(resource.calls.filter((c) => c.op === 'create')).toHaveLength(3);
    const warned = lines.filter((l) => l.message.startsWith('API server warning'));
    expect(warned).toEqual([
      expect.objectContaining({ level: 'warn', message: `API server warning: ${TEXT}` }),
    ]);
    const counted = await counter(registry);
    // At least the list or watch-list and three finalizer patches.
    expect(counted).toBeGreaterThanOrEqual(4);
    // More requests: counted, not logged again.
    const client = fw.client as ObjectClient;
    await client.get({ ...GIZMOS, namespace: 'default', name: 'a' }, { live: true });
    expect(await counter(registry)).toBe(counted + 1);
    expect(lines.filter((l) => l.message.startsWith('API server warning'))).toHaveLength(1);
  });

  it('a handler of your own replaces the default, and false drops them', async () => {
    const kubeConfig = await setUp();
    const seen: { text: string; method: string; path: string }[] = [];
    const { lines, logger } = capture();
    const registry = new Registry();
    fw = new Framework<Widget>({
      name: 'own-handler',
      kubeConfig,
      resource: GIZMOS,
      resourceSets: [new ResourceSet<Widget>({ resources: [new RecordingResource()] })],
      registry,
      logger,
      healthServer: false,
      warningHandler: (w, request) => seen.push({ text: w.text, ...request }),
    });
    await fw.start();
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen[0]).toMatchObject({ text: TEXT, path: `/apis/${GROUP}/v1beta1/gizmos` });
    expect(lines.filter((l) => l.message.startsWith('API server warning'))).toHaveLength(0);
    expect(await counter(registry)).toBe(0);
    await fw.stop();

    const silent = new Framework<Widget>({
      name: 'no-warnings',
      kubeConfig,
      resource: GIZMOS,
      resourceSets: [new ResourceSet<Widget>({ resources: [new RecordingResource()] })],
      registry: new Registry(),
      logger,
      healthServer: false,
      warningHandler: false,
    });
    fw = silent;
    await silent.start();
    expect(lines.filter((l) => l.message.startsWith('API server warning'))).toHaveLength(0);
    expect(() => new Framework<Widget>({ name: 'bad', kubeConfig, warningHandler: 'log' as never })).toThrow(
      /config\.warningHandler must be a function/,
    );
  });
});
