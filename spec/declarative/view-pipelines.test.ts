import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeclarativeOperator,
  isAlreadyExists,
  ObjectClient,
  type ControllerError,
  type OperatorSpec,
} from '../../lib/index.js';
import { startTestEnvironment, waitFor, type TestEnvironment } from '../../lib/testing/index.js';

let env: TestEnvironment;
beforeAll(async () => {
  env = await startTestEnvironment();
});
afterAll(async () => {
  for (const client of viewClients.values()) client.close();
  await env.close();
});

interface View extends KubernetesObject {
  spec?: Record<string, unknown>;
}

const viewClients = new Map<DeclarativeOperator, ObjectClient>();

/**
 * A client on the operator's view server: the environment's own server on the embedded backend; on a real
 * cluster (`make test-real`) the embedded view server the operator started.
 */
function viewClient(op: DeclarativeOperator): ObjectClient {
  const server = op.viewServer;
  if (env.apiServer !== undefined || server === undefined) return env.client;
  let client = viewClients.get(op);
  if (client === undefined) {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(server.kubeconfig);
    client = new ObjectClient({ kubeConfig });
    viewClients.set(op, client);
  }
  return client;
}

/** Creates a view object as a user would; on a separate view server its namespace is made first. */
async function createView(op: DeclarativeOperator, view: KubernetesObject): Promise<void> {
  const client = viewClient(op);
  const namespace = view.metadata?.namespace;
  if (client !== env.client && namespace !== undefined) {
    await client
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
      .catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
  }
  await client.create(view);
}

async function views(op: DeclarativeOperator, kind: string, namespace: string): Promise<View[]> {
  try {
    const list = await viewClient(op).list<View>({ apiVersion: `${op.viewGroup}/v1alpha1`, kind, namespace });
    return list.items.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  } catch {
    return [];
  }
}

function cm(
  namespace: string,
  name: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    data,
  } as KubernetesObject;
}

const d2: OperatorSpec = {
  controllers: [
    {
      name: 'cm-view',
      sources: [{ apiGroup: '', kind: 'ConfigMap' }],
      pipeline: {
        '@aggregate': [
          {
            '@project': {
              metadata: { name: '$.metadata.name', namespace: '$.metadata.namespace' },
              spec: { x: '$.data.x' },
            },
          },
        ],
      },
      target: { kind: 'CmView' },
    },
  ],
};

describe('DeclarativeOperator on the embedded server', () => {
  it('D2: a ConfigMap projected into a view follows the ConfigMap through create, update and delete', async () => {
    const ns = await env.createNamespace('d2');
    const op = new DeclarativeOperator('d2', d2, { kubeConfig: env.kubeConfig, apiServer: env.apiServer });
    await op.start();
    try {
      await env.client.create(cm(ns, 'a', { x: '1' }));
      await waitFor(async () => (await views(op, 'CmView', ns)).find((v) => v.spec?.x === '1'), {
        description: 'view a',
      });
      await env.client.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' },
        { data: { x: '2' } },
        'merge',
      );
      await waitFor(async () => (await views(op, 'CmView', ns)).find((v) => v.spec?.x === '2'), {
        description: 'view a updated',
      });
      await env.client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' });
      await waitFor(async () => (await views(op, 'CmView', ns)).length === 0, {
        description: 'view a deleted',
      });
      const status = op.getStatus(3).controllers[0];
      expect(status?.conditions[0]).toMatchObject({
        type: 'Ready',
        status: 'True',
        reason: 'Ready',
        observedGeneration: 3,
      });
    } finally {
      await op.stop();
    }
  });

  async function running(spec: OperatorSpec, name: string): Promise<DeclarativeOperator> {
    const op = new DeclarativeOperator(name, spec, { kubeConfig: env.kubeConfig, apiServer: env.apiServer });
    await op.start();
    return op;
  }

  it('D3: @select keeps matching ConfigMaps only; flipping the field removes the view', async () => {
    const ns = await env.createNamespace('d3');
    const spec: OperatorSpec = {
      controllers: [
        {
          name: 'on-only',
          sources: [{ apiGroup: '', kind: 'ConfigMap', namespace: ns }],
          pipeline: [
            { '@select': { '@eq': ['$.data.on', 'yes'] } },
            { '@project': { metadata: '$.metadata', spec: '$.data' } },
          ],
          target: { kind: 'OnView' },
        },
      ],
    };
    const op = await running(spec, 'd3');
    try {
      await env.client.create(cm(ns, 'a', { on: 'yes' }));
      await env.client.create(cm(ns, 'b', { on: 'no' }));
      await waitFor(async () => (await views(op, 'OnView', ns)).length === 1, { description: 'one view' });
      expect((await views(op, 'OnView', ns)).map((v) => v.metadata?.name)).toEqual(['a']);
      await env.client.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' },
        { data: { on: 'no' } },
        'merge',
      );
      await waitFor(async () => (await views(op, 'OnView', ns)).length === 0, { description: 'no view' });
    } finally {
      await op.stop();
    }
  });

  it('D4 + D5: @unwind makes <name>-<i> views and shrinks with the list; @gather groups names by label', async () => {
    const ns = await env.createNamespace('d4');
    const unwind: OperatorSpec = {
      controllers: [
        {
          name: 'unwind',
          sources: [{ kind: 'ItemSet' }],
          pipeline: [{ '@unwind': '$.spec.items' }],
          target: { kind: 'Item' },
        },
        {
          name: 'gather',
          sources: [
            {
              apiGroup: '',
              kind: 'ConfigMap',
              namespace: ns,
              labelSelector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] },
            },
          ],
          pipeline: [
            { '@gather': ['$.metadata.labels.app', '$.metadata.name'] },
            {
              '@project': {
                metadata: { name: '$.metadata.labels.app', namespace: '$.metadata.namespace' },
                spec: { names: '$.metadata.name' },
              },
            },
          ],
          target: { kind: 'App' },
        },
      ],
    };
    const op = await running(unwind, 'd4');
    try {
      const itemSet = {
        apiVersion: `${op.viewGroup}/v1alpha1`,
        kind: 'ItemSet',
        metadata: { name: 's', namespace: ns },
        spec: { items: ['p', 'q', 'r'] },
      };
      await createView(op, itemSet);
      await waitFor(async () => (await views(op, 'Item', ns)).length === 3, { description: '3 items' });
      expect((await views(op, 'Item', ns)).map((v) => [v.metadata?.name, v.spec?.items])).toEqual([
        ['s-0', 'p'],
        ['s-1', 'q'],
        ['s-2', 'r'],
      ]);
      await viewClient(op).patch(
        { apiVersion: itemSet.apiVersion, kind: 'ItemSet', namespace: ns, name: 's' },
        { spec: { items: ['p', 'q'] } },
        'merge',
      );
      await waitFor(async () => (await views(op, 'Item', ns)).length === 2, { description: 's-2 deleted' });
      for (const [name, app] of [
        ['c3', 'a'],
        ['c1', 'a'],
        ['c2', 'b'],
      ] as const)
        await env.client.create(cm(ns, name, {}, { app }));
      await waitFor(async () => (await views(op, 'App', ns)).length === 2, { description: 'two apps' });
      expect((await views(op, 'App', ns)).map((v) => [v.metadata?.name, v.spec?.names])).toEqual([
        ['a', ['c1', 'c3']],
        ['b', ['c2']],
      ]);
    } finally {
      await op.stop();
    }
  });

  it('D6: a ConfigMap-Secret join makes one view per pair; deleting the Secret deletes the view', async () => {
    const ns = await env.createNamespace('d6');
    const spec: OperatorSpec = {
      controllers: [
        {
          name: 'pair',
          sources: [
            { apiGroup: '', kind: 'ConfigMap', namespace: ns },
            { apiGroup: '', kind: 'Secret', namespace: ns },
          ],
          pipeline: {
            '@join': { '@eq': ['$.ConfigMap.metadata.name', '$.Secret.metadata.name'] },
            '@aggregate': [
              {
                '@project': {
                  metadata: {
                    name: '$.ConfigMap.metadata.name',
                    namespace: '$.ConfigMap.metadata.namespace',
                  },
                  spec: { config: '$.ConfigMap.data.x', password: '$.Secret.data.password' },
                },
              },
            ],
          },
          target: { kind: 'Pair' },
        },
      ],
    };
    const op = await running(spec, 'd6');
    try {
      await env.client.create(cm(ns, 'a', { x: '1' }));
      await env.client.create(cm(ns, 'lonely', { x: '2' }));
      await env.client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'a', namespace: ns },
        data: { password: Buffer.from('s3cret').toString('base64') },
      } as KubernetesObject);
      await waitFor(async () => (await views(op, 'Pair', ns)).length === 1, { description: 'one pair' });
      // Secret data is base64-decoded for the pipeline, as in dcontroller.
      expect((await views(op, 'Pair', ns))[0]?.spec).toEqual({ config: '1', password: 's3cret' });
      await env.client.delete({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'a' });
      await waitFor(async () => (await views(op, 'Pair', ns)).length === 0, { description: 'pair deleted' });
    } finally {
      await op.stop();
    }
  });

  it('D7: an Updater keeps foreign labels; a Patcher changes exactly its fields and nulls them when its output goes', async () => {
    const ns = await env.createNamespace('d7');
    await env.client.create(cm(ns, 'out', { old: 'x' }, { foreign: 'keep' }));
    await env.client.create(cm(ns, 'patched', { own: 'o', other: 'untouched' }));
    const spec: OperatorSpec = {
      controllers: [
        {
          name: 'updater',
          sources: [{ kind: 'Wish' }],
          pipeline: [
            {
              '@project': {
                metadata: { name: 'out', namespace: '$.metadata.namespace', labels: { mine: 'yes' } },
                data: { v: '$.spec.v' },
              },
            },
          ],
          target: { apiGroup: '', kind: 'ConfigMap', type: 'Updater' },
        },
        {
          name: 'patcher',
          sources: [{ kind: 'Wish' }],
          pipeline: [
            { '@select': { '@exists': '$.spec.patch' } },
            {
              '@project': {
                metadata: {
                  name: 'patched',
                  namespace: '$.metadata.namespace',
                  annotations: { by: 'patcher' },
                },
                data: { own: '$.spec.patch' },
              },
            },
          ],
          target: { apiGroup: '', kind: 'ConfigMap', type: 'Patcher' },
        },
      ],
    };
    const op = await running(spec, 'd7');
    try {
      const wishRef = { apiVersion: `${op.viewGroup}/v1alpha1`, kind: 'Wish', namespace: ns, name: 'w' };
      await createView(op, {
        apiVersion: wishRef.apiVersion,
        kind: 'Wish',
        metadata: { name: 'w', namespace: ns },
        spec: { v: '1', patch: 'P' },
      } as KubernetesObject);
      const ref = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name });
      type Cm = KubernetesObject & { data?: Record<string, string> };
      const out = await waitFor(
        async () => {
          const o = await env.client.get<Cm>(ref('out'));
          return o.data?.v === '1' ? o : undefined;
        },
        { description: 'updater wrote out' },
      );
      expect(out.metadata?.labels).toEqual({ foreign: 'keep', mine: 'yes' });
      expect(out.data).toEqual({ v: '1' });
      const patched = await waitFor(
        async () => {
          const o = await env.client.get<Cm>(ref('patched'));
          return o.data?.own === 'P' ? o : undefined;
        },
        { description: 'patcher patched' },
      );
      expect(patched.data).toEqual({ own: 'P', other: 'untouched' });
      expect(patched.metadata?.annotations).toEqual({ by: 'patcher' });
      // The Patcher's output goes away: exactly its fields are nulled.
      await viewClient(op).patch(wishRef, { spec: { patch: null } }, 'merge');
      const after = await waitFor(
        async () => {
          const o = await env.client.get<Cm>(ref('patched'));
          return o.data?.own === undefined ? o : undefined;
        },
        { description: 'patcher fields nulled' },
      );
      expect(after.data).toEqual({ other: 'untouched' });
      expect(after.metadata?.annotations).toBeUndefined();
      // The Updater's output goes away: its object is deleted.
      await viewClient(op).delete(wishRef);
      await waitFor(
        async () =>
          env.client.get(ref('out')).then(
            () => false,
            () => true,
          ),
        { description: 'out deleted' },
      );
    } finally {
      await op.stop();
    }
  });

  it('D1 + bad input: each bad controller is Ready False with a located error; the good one runs', async () => {
    const ns = await env.createNamespace('d1');
    const good = {
      name: 'good',
      sources: [{ apiGroup: '', kind: 'ConfigMap', namespace: ns }],
      pipeline: [{ '@project': { metadata: '$.metadata' } }],
      target: { kind: 'GoodView' },
    };
    const spec = {
      controllers: [
        { name: 'no-sources', sources: [], target: { kind: 'X' } },
        { name: '', sources: [{ kind: 'A' }], target: { kind: 'X' } },
        { name: 'no-target', sources: [{ kind: 'A' }] },
        { name: 'two-no-join', sources: [{ kind: 'A' }, { kind: 'B' }], target: { kind: 'X' } },
        {
          name: 'unknown-op',
          sources: [{ kind: 'A' }],
          pipeline: { '@aggregate': [{ '@project': {} }, { '@select': { '@frob': [] } }] },
          target: { kind: 'X' },
        },
        {
          name: 'bad-path',
          sources: [{ kind: 'A' }],
          pipeline: [{ '@select': { '@eq': ['$.spec[', 1] } }],
          target: { kind: 'X' },
        },
        { name: 'cycle-1', sources: [{ kind: 'C1' }], target: { kind: 'C2' } },
        { name: 'cycle-2', sources: [{ kind: 'C2' }], target: { kind: 'C1' } },
        {
          name: 'no-such-kind',
          sources: [{ apiGroup: '', kind: 'ConfigMap', namespace: ns }],
          target: { apiGroup: 'nowhere.example.com', version: 'v1', kind: 'Ghost' },
        },
        good,
      ],
    } as unknown as OperatorSpec;
    const op = await running(spec, 'd1');
    try {
      await env.client.create(cm(ns, 'a', { x: '1' }));
      await waitFor(async () => (await views(op, 'GoodView', ns)).length === 1, {
        description: 'the good controller ran',
      });
      const status = op.getStatus(3).controllers;
      const byName = new Map(status.map((c) => [c.name, c]));
      const expected: [string, RegExp][] = [
        ['no-sources', /^controllers\[0\]\.sources: a controller needs at least one source/],
        ['controllers[1]', /^controllers\[1\]\.name: a controller needs a non-empty name/],
        ['no-target', /^controllers\[2\]\.target: a controller needs a target/],
        ['two-no-join', /^controllers\[3\]\.pipeline: 2 sources \(A, B\) need a '@join' condition/],
        [
          'unknown-op',
          /^controllers\[4\]\.pipeline\['@aggregate'\]\[1\]\['@select'\]\['@frob'\]: unknown operator '@frob'/,
        ],
        ['bad-path', /^controllers\[5\]\.pipeline\[0\]\['@select'\]\['@eq'\]\[0\]: malformed JSONPath/],
        ['cycle-1', /^controllers\[6\]: cyclic view dependency: cycle-1 → cycle-2 → cycle-1/],
        ['cycle-2', /^controllers\[7\]: cyclic view dependency: cycle-2 → cycle-1 → cycle-2/],
        [
          'no-such-kind',
          /^controllers\[8\]\.target: kind Ghost \(group 'nowhere\.example\.com', version v1\) is not served/,
        ],
      ];
      for (const [name, message] of expected) {
        const c = byName.get(name);
        expect(c?.conditions[0], name).toMatchObject({
          type: 'Ready',
          status: 'False',
          reason: 'NotReady',
          observedGeneration: 3,
        });
        expect(c?.lastErrors?.[0], name).toMatch(message);
      }
      expect(byName.get('good')?.conditions[0]).toMatchObject({ status: 'True', reason: 'Ready' });
      expect(op.getController('no-target')?.hasCritical).toBe(true);
      expect(op.listControllers()).toHaveLength(10);
      // A controller added later with a bad spec: recorded, never thrown.
      const late = op.addController({
        name: 'late',
        sources: [{ kind: 'A' }],
        target: { kind: 'X', type: 'Merger' },
      } as never);
      expect(late.reportErrors()[0]).toMatch(/^controllers\[10\]\.target\.type: must be Updater or Patcher/);
    } finally {
      await op.stop();
    }
  });

  it('D8 + D10: a failing pass is retried with backoff, errors reach onError rate limited, and the status recovers', async () => {
    const ns = await env.createNamespace('d8');
    const spec: OperatorSpec = {
      controllers: [
        {
          name: 'strict',
          sources: [{ apiGroup: '', kind: 'ConfigMap', namespace: ns }],
          // A type error while data.on is not a boolean string.
          pipeline: [
            { '@select': { '@and': [{ '@bool': '$.data.on' }] } },
            { '@project': { metadata: '$.metadata' } },
          ],
          target: { kind: 'StrictView' },
        },
      ],
    };
    const op = new DeclarativeOperator('d8', spec, { kubeConfig: env.kubeConfig, apiServer: env.apiServer });
    const received: ControllerError[] = [];
    op.onError((e) => received.push(e));
    await op.start();
    try {
      await env.client.create(cm(ns, 'bad', { on: 'maybe' }));
      const c = op.getController('strict');
      await waitFor(() => (c?.reportErrors().length ?? 0) >= 6, {
        description: 'six failed passes (retries)',
      });
      expect(received).toHaveLength(3);
      expect(received[0]?.controller).toBe('strict');
      expect(received[0]?.critical).toBe(false);
      expect(c?.reportErrors()[0]).toMatch(
        /^controllers\[0\]\.pipeline\[0\]\['@select'\]\['@and'\]\[0\]\['@bool'\]: @bool: the argument must be a boolean, "true"\/"false" or a number, got "maybe"/,
      );
      expect(op.getStatus(1).controllers[0]?.conditions[0]).toMatchObject({
        status: 'Unknown',
        reason: 'ReconciliationFailed',
      });
      // After 2 s one more error passes the limit, never more.
      await waitFor(() => received.length === 4, { description: 'a 4th error after 2 s', timeoutMs: 5_000 });
      expect(op.droppedErrors).toBeGreaterThan(0);
      expect(c?.reportErrors().length).toBeLessThanOrEqual(10);
      // D10: fix the data; the next pass succeeds and the status is Ready again.
      await env.client.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'bad' },
        { data: { on: 'true' } },
        'merge',
      );
      await waitFor(async () => (await views(op, 'StrictView', ns)).length === 1, {
        description: 'view after the fix',
      });
      await waitFor(() => op.getStatus(2).controllers[0]?.conditions[0]?.status === 'True', {
        description: 'Ready again',
      });
    } finally {
      await op.stop();
    }
  });

  it('D13: fromFile with the D2 spec in YAML gives the same view', async () => {
    const ns = await env.createNamespace('d13');
    const dir = await mkdtemp(join(tmpdir(), 'rk-d13-'));
    const file = join(dir, 'spec.yaml');
    await writeFile(
      file,
      `controllers:
  - name: cm-view
    sources:
      - apiGroup: ""
        kind: ConfigMap
        namespace: ${ns}
    pipeline:
      "@aggregate":
        - "@project":
            metadata:
              name: $.metadata.name
              namespace: $.metadata.namespace
            spec:
              x: $.data.x
    target:
      kind: CmView
`,
    );
    const op = await DeclarativeOperator.fromFile('d13', file, {
      kubeConfig: env.kubeConfig,
      apiServer: env.apiServer,
    });
    await op.start();
    try {
      await env.client.create(cm(ns, 'a', { x: '1' }));
      const [view] = await waitFor(
        async () => {
          const list = await views(op, 'CmView', ns);
          return list.length === 1 ? list : undefined;
        },
        { description: 'view from YAML' },
      );
      expect(view?.spec).toEqual({ x: '1' });
      expect(view?.metadata?.name).toBe('a');
    } finally {
      await op.stop();
    }
  });
});
