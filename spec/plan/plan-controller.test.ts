// plan() on reconcile-function controllers, a phase reconciler and an Operator, against the embedded API
// server: every write goes out with dryRun=All and comes back as the planned change; a write that bypasses
// the planning client (the controller's own client, a client-node instance) is refused and reported not
// plannable; nothing on the server changes; a real run then changes exactly the planned objects.
import { CoreV1Api, KubeConfig, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import {
  cacheKey,
  clientKey,
  Controller,
  InformerController,
  isNotFound,
  Operator,
  plan,
  silentLogger,
  StdK8sReconciler,
  type K8sPhaseReconciler,
  type ReconcileContext,
} from 'reconcilekit';
import { startTestEnvironment, waitFor, type TestEnvironment } from 'reconcilekit/testing';
import { NotPlannableError, planningClient } from '../../lib/plan/planning-client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineKind, Type, type ObjectOf } from 'reconcilekit/kinds';

type Greeting = KubernetesObject & { spec: { message: string } };
/** A Note whose status records the copied text (the spec's phase writes it). */
const NoteKind = defineKind({
  group: 'example.com',
  kind: 'Note',
  plural: 'notes',
  versions: {
    v1: {
      spec: Type.Object({ text: Type.String() }),
      status: Type.Object({ copied: Type.Optional(Type.String()) }),
      subresources: { status: true },
    },
  },
});
type Note = ObjectOf<typeof NoteKind>;

let env: TestEnvironment;
let ns: string;
const greetingRef = { apiVersion: 'example.com/v1', kind: 'Greeting', plural: 'greetings' };
const noteRef = { apiVersion: 'example.com/v1', kind: 'Note', plural: 'notes' };
const cmRef = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };

function client(ctx: ReconcileContext) {
  const c = ctx.get(clientKey);
  if (c === undefined) throw new Error('no client');
  return c;
}

/** Greeting → `<name>-greeting` ConfigMap (create or update through replace); `stale-<name>` deleted. */
function greetingController(name = 'greetings'): Controller<Greeting> {
  return new Controller<Greeting>({
    name,
    kubeConfig: env.kubeConfig,
    resource: { ...greetingRef, namespace: ns },
    finalizer: false,
    logger: silentLogger(),
    reconciler: async (ctx, { object }) => {
      const c = client(ctx);
      const gname = object.metadata?.name ?? '';
      const ref = { ...cmRef, namespace: ns, name: `${gname}-greeting` };
      let current: V1ConfigMap | undefined;
      try {
        current = await c.get<V1ConfigMap>(ref);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      const data = { message: object.spec.message };
      if (current === undefined) {
        await c.create<V1ConfigMap>({ ...cmRef, metadata: { name: ref.name, namespace: ns }, data });
      } else if (current.data?.message !== data.message) {
        await c.replace<V1ConfigMap>({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: current.metadata,
          data,
        });
      }
      try {
        await c.delete({ ...cmRef, namespace: ns, name: `stale-${gname}` });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  });
}

async function versions(...refs: { apiVersion: string; kind: string; plural: string }[]) {
  const out = new Map<string, string>();
  for (const ref of refs) {
    const list = await env.client.list({ ...ref, namespace: ns });
    for (const o of list.items) out.set(`${o.kind}/${o.metadata?.name}`, o.metadata?.resourceVersion ?? '');
  }
  return out;
}

async function cmListRv(): Promise<string> {
  return (await env.client.list({ ...cmRef, namespace: ns })).metadata.resourceVersion;
}

beforeAll(async () => {
  env = await startTestEnvironment({
    crds: ['examples/greeting-operator/crd.yaml', NoteKind.crd()],
  });
  ns = await env.createNamespace('planctl');
  // g0–g3 without a ConfigMap, g4–g7 outdated, g8–g9 in line; g0 and g5 have a stale ConfigMap to delete.
  for (let i = 0; i < 10; i++) {
    const name = `g${i}`;
    await env.client.create({
      ...greetingRef,
      metadata: { name, namespace: ns },
      spec: { message: `hi ${i}` },
    });
    if (i >= 4) {
      await env.client.create({
        ...cmRef,
        metadata: { name: `${name}-greeting`, namespace: ns },
        data: { message: i < 8 ? 'old' : `hi ${i}` },
      });
    }
  }
  for (const name of ['stale-g0', 'stale-g5']) {
    await env.client.create({ ...cmRef, metadata: { name, namespace: ns }, data: { x: '1' } });
  }
}, 60_000);

afterAll(async () => {
  await env.close();
});

describe('plan: reconcile-function controllers', () => {
  it("reports the controller's create/update/delete calls as dry-run results and changes nothing", async () => {
    const before = await versions(greetingRef, cmRef);
    const events: string[] = [];
    const stop = new AbortController();
    const watching = env.client
      .watch(
        { ...cmRef, namespace: ns },
        { signal: stop.signal, resourceVersion: await cmListRv() },
        (t, o) => {
          if (t !== 'BOOKMARK') events.push(`${t} ${o.metadata?.name}`);
        },
      )
      .catch(() => undefined);
    const result = await plan(greetingController());
    expect(result.errors).toBe(0);
    expect(result.objects.map((o) => o.name).sort()).toEqual(
      [...Array(10).keys()].map((i) => `g${i}`).sort(),
    );
    const byName = new Map(result.objects.map((o) => [o.name, o]));
    const parts = (name: string) =>
      (byName.get(name)?.resources ?? []).flatMap((r) => r.parts.map((p) => `${r.resource} ${p.part}`));
    expect(parts('g1')).toEqual([`ConfigMap ${ns}/g1-greeting create`]);
    expect(parts('g0')).toEqual([`ConfigMap ${ns}/g0-greeting create`, `ConfigMap ${ns}/stale-g0 delete`]);
    expect(parts('g5')).toEqual([`ConfigMap ${ns}/g5-greeting update`, `ConfigMap ${ns}/stale-g5 delete`]);
    expect(parts('g9')).toEqual([]);
    // What the server answered: the created object with its defaults, the updated field against the current one.
    const g1 = byName.get('g1')?.resources[0]?.parts[0];
    expect(g1?.after).toMatchObject({ kind: 'ConfigMap', data: { message: 'hi 1' } });
    expect(g1?.diff).toContainEqual({ path: 'data.message', after: 'hi 1' });
    const g6 = byName.get('g6')?.resources[0]?.parts[0];
    expect(g6?.diff).toEqual([{ path: 'data.message', before: 'old', after: 'hi 6' }]);
    expect(result.changes).toBe(4 + 4 + 2);
    expect(byName.get('g1')?.controller).toBe('greetings');

    // Nothing changed: every resourceVersion as before, no ConfigMap watch event.
    expect(await versions(greetingRef, cmRef)).toEqual(before);
    await new Promise((r) => setTimeout(r, 200));
    expect(events).toEqual([]);

    // The real run changes exactly the planned objects.
    const ctl = greetingController();
    await ctl.start();
    try {
      await waitFor(
        async () => {
          const list = await env.client.list<V1ConfigMap>({ ...cmRef, namespace: ns });
          return (
            list.items.length === 10 && list.items.every((c) => c.data?.message?.startsWith('hi') === true)
          );
        },
        { timeoutMs: 30_000 },
      );
    } finally {
      await ctl.stop();
    }
    stop.abort();
    await watching;
    const after = await versions(cmRef);
    const changed = [...new Set([...before.keys(), ...after.keys()])]
      .filter((k) => k.startsWith('ConfigMap/') && before.get(k) !== after.get(k))
      .map((k) => k.slice('ConfigMap/'.length))
      .sort();
    const plannedNames = result.objects
      .flatMap((o) =>
        o.resources.filter((r) => r.parts.length > 0).map((r) => r.resource.split('/')[1] ?? ''),
      )
      .sort();
    expect(changed).toEqual(plannedNames);
  }, 60_000);

  it('reports an object not plannable when its reconciler writes with its own client, and sends nothing', async () => {
    const before = await versions(greetingRef, cmRef);
    const own = new KubeConfig();
    own.loadFromString(env.kubeConfig.exportConfig());
    const core = own.makeApiClient(CoreV1Api);
    const rogue = new Controller<Greeting>({
      name: 'rogue',
      kubeConfig: env.kubeConfig,
      resource: { ...greetingRef, namespace: ns },
      finalizer: false,
      logger: silentLogger(),
      reconciler: async (_ctx, { object }) => {
        if (object.metadata?.name !== 'g3') return;
        await core.createNamespacedConfigMap({
          namespace: ns,
          body: { metadata: { name: 'rogue-g3' }, data: { x: '1' } },
        });
      },
    });
    const captured = greetingController('captured');
    // This one writes through the controller's real client (captured), not the one in the context.
    const sneaky = new Controller<Greeting>({
      name: 'sneaky',
      kubeConfig: env.kubeConfig,
      resource: { ...greetingRef, namespace: ns },
      finalizer: false,
      logger: silentLogger(),
      reconciler: async (_ctx, { object }) => {
        if (object.metadata?.name !== 'g2') return;
        await captured.client?.create({ ...cmRef, metadata: { name: 'sneaky-g2', namespace: ns }, data: {} });
      },
    });
    // dryRun=All in the query but DeleteOptions without it in the body: the server would delete (body wins).
    const server = env.kubeConfig.getCurrentCluster()?.server ?? '';
    const fetcher = new Controller<Greeting>({
      name: 'fetcher',
      kubeConfig: env.kubeConfig,
      resource: { ...greetingRef, namespace: ns },
      finalizer: false,
      logger: silentLogger(),
      reconciler: async (_ctx, { object }) => {
        if (object.metadata?.name !== 'g8') return;
        await fetch(`${server}/api/v1/namespaces/${ns}/configmaps/g8-greeting?dryRun=All`, {
          method: 'DELETE',
          body: JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' }),
        });
      },
    });
    const operator = new Operator({ kubeConfig: env.kubeConfig, logger: silentLogger() });
    operator.addController(rogue);
    operator.addController(sneaky);
    operator.addController(fetcher);
    const result = await plan(operator);
    expect(result.objects).toHaveLength(30);
    const notPlannable = result.objects
      .filter((o) => o.resources.some((r) => r.notPlannable !== undefined))
      .map((o) => `${o.controller}/${o.name}`)
      .sort();
    expect(notPlannable).toEqual(['fetcher/g8', 'rogue/g3', 'sneaky/g2']);
    expect(result.errors).toBe(3);
    const rogueG3 = result.objects.find((o) => o.controller === 'rogue' && o.name === 'g3');
    expect(rogueG3?.resources[0]?.resource).toMatch(
      /^POST https?:\/\/.*\/api\/v1\/namespaces\/.*\/configmaps$/,
    );
    expect(await versions(greetingRef, cmRef)).toEqual(before);
    // Outside a plan the same client writes again (the guard is gone).
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'after-plan' }, data: {} },
    });
    await env.client.delete({ ...cmRef, namespace: ns, name: 'after-plan' });
  }, 60_000);

  it("refuses, with NotPlannableError before anything is sent, a write through the plan client's transport (open, or request on the planning client); a read through it still works", async () => {
    const before = await versions(greetingRef, cmRef);
    const body = (name: string): object => ({ ...cmRef, metadata: { name, namespace: ns }, data: {} });
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const raw = new Controller<Greeting>({
      name: 'raw',
      kubeConfig: env.kubeConfig,
      resource: { ...greetingRef, namespace: ns },
      finalizer: false,
      logger: silentLogger(),
      reconciler: async (ctx, { object }) => {
        if (object.metadata?.name !== 'g4') return;
        const client = ctx.get(clientKey)!;
        await client.transport.request({ method: 'GET', path });
        await client.transport.open({ method: 'POST', path, body: body('raw-g4') });
      },
    });
    const result = await plan(raw);
    const g4 = result.objects.find((o) => o.name === 'g4');
    expect(g4?.resources).toEqual([
      {
        resource: `POST ${path}`,
        path: 'update',
        parts: [],
        notPlannable: 'the reconciler wrote outside the planning client (refused, nothing was sent)',
      },
    ]);
    expect(result.errors).toBe(1);
    const planning = planningClient(env.client);
    await expect(
      planning.transport.request({ method: 'POST', path, body: body('raw-planning') }),
    ).rejects.toThrow(NotPlannableError);
    await expect(planning.transport.request({ method: 'GET', path })).resolves.toMatchObject({
      kind: 'ConfigMapList',
    });
    expect(await versions(greetingRef, cmRef)).toEqual(before);
  }, 60_000);

  it("plans a phase reconciler's child and its status write as dry-run updates", async () => {
    await env.client.create({ ...noteRef, metadata: { name: 'n1', namespace: ns }, spec: { text: 'one' } });
    const phase: K8sPhaseReconciler<Note> = {
      name: 'configmap',
      async read(ctx, note, data) {
        try {
          data.set(
            'cm',
            await client(ctx).get({ ...cmRef, namespace: ns, name: `${note.metadata.name}-note` }),
          );
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      },
      diff: (_ctx, _note, data) => ({ needCreate: data.get('cm') === undefined, needUpdate: false }),
      async create(ctx, note) {
        await client(ctx).create({
          ...cmRef,
          metadata: { name: `${note.metadata.name}-note`, namespace: ns },
          data: { text: note.spec.text },
        });
        note.status = { copied: note.spec.text };
      },
    };
    const notes = new Controller<Note>({
      name: 'notes',
      kubeConfig: env.kubeConfig,
      resource: { ...noteRef, namespace: ns },
      logger: silentLogger(),
      reconciler: new StdK8sReconciler<Note>({ phases: [phase], hooks: { delete: async () => {} } }),
    });
    const before = await versions(noteRef, cmRef);
    const result = await plan(notes);
    expect(result.errors).toBe(0);
    const n1 = result.objects[0];
    const writes = (n1?.resources ?? []).flatMap((r) =>
      r.parts.map((p) => ({ resource: r.resource, part: p.part, paths: (p.diff ?? []).map((d) => d.path) })),
    );
    // The engine's finalizer, the child, the status: in the order a real pass writes them.
    expect(writes).toEqual([
      { resource: `Note ${ns}/n1`, part: 'update', paths: ['metadata.finalizers'] },
      { resource: `Note ${ns}/n1`, part: 'update', paths: ['status.copied'] },
      expect.objectContaining({ resource: `ConfigMap ${ns}/n1-note`, part: 'create' }),
    ]);
    expect(await versions(noteRef, cmRef)).toEqual(before);
  }, 60_000);

  it("plans an InformerController's handlers as on a first list: writes dry-run, a failed call the object's error", async () => {
    const ic = new InformerController({
      name: 'informers',
      kubeConfig: env.kubeConfig,
      logger: silentLogger(),
    });
    ic.addInformer({ ...greetingRef, namespace: ns }, 'Greeting');
    const seen: string[] = [];
    ic.addWatcher({ add: async (_ctx, obj) => void seen.push(`add ${obj.metadata?.name}`) }, 'Greeting');
    ic.addReconciler(
      {
        reconcile: async (ctx, req) => {
          seen.push(`${req.action} ${req.object.metadata?.name}`);
          const name = req.object.metadata?.name ?? '';
          if (name === 'g7') throw new Error('g7 cannot be reconciled');
          if (name !== 'g1') return;
          await client(ctx).patch(
            { ...cmRef, namespace: ns, name: 'g1-greeting' },
            { data: { extra: 'yes' } },
            'merge',
          );
        },
      },
      'Greeting',
    );
    const before = await versions(greetingRef, cmRef);
    const result = await plan(ic);
    expect(result.objects).toHaveLength(10);
    expect(seen.filter((s) => s.startsWith('add '))).toHaveLength(10);
    expect(seen.filter((s) => s.startsWith('created '))).toHaveLength(10);
    const g1 = result.objects.find((o) => o.name === 'g1');
    expect(g1?.resources.map((r) => r.resource)).toEqual([`ConfigMap ${ns}/g1-greeting`]);
    expect(g1?.resources[0]?.parts[0]?.diff).toEqual([{ path: 'data.extra', after: 'yes' }]);
    expect(result.objects.find((o) => o.name === 'g7')?.error).toMatch(/g7 cannot be reconciled/);
    expect(result.changes).toBe(1);
    expect(result.errors).toBe(1);
    expect(ic.pendingObjects).toBe(0);
    expect(await versions(greetingRef, cmRef)).toEqual(before);
  }, 60_000);

  it("gives the reconciler the engine's cache as listed (reconciled and owned kinds)", async () => {
    await env.client.create({
      ...greetingRef,
      metadata: { name: 'g10', namespace: ns },
      spec: { message: 'hi 10' },
    });
    const cached = new Controller<Greeting>({
      name: 'cached',
      kubeConfig: env.kubeConfig,
      resource: { ...greetingRef, namespace: ns },
      owns: [{ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' }],
      finalizer: false,
      logger: silentLogger(),
      reconciler: async (ctx, { object }) => {
        const name = `${object.metadata?.name ?? ''}-greeting`;
        const cache = ctx.get(cacheKey);
        if (cache?.('Greeting', 'example.com/v1')?.getByName(object.metadata?.name ?? '', ns) === undefined) {
          throw new Error('the reconciled object is not in its own cache');
        }
        // Only what the cache does not hold is created: without a cache every create would be a 409.
        if (cache('ConfigMap')?.getByName(name, ns) !== undefined) return;
        await client(ctx).create({
          ...cmRef,
          metadata: { name, namespace: ns },
          data: { message: object.spec.message },
        });
      },
    });
    const result = await plan(cached);
    expect(result.errors).toBe(0);
    expect(result.objects).toHaveLength(11);
    const changed = result.objects.filter((o) => o.resources.length > 0).map((o) => o.name);
    expect(changed).toEqual(['g10']);
    expect(result.objects.find((o) => o.name === 'g10')?.resources[0]?.parts[0]?.part).toBe('create');
  }, 60_000);
});
