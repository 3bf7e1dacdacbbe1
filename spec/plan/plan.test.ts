// plan() against the embedded API server: the Greeting operator (one ConfigMap per Greeting) planned over
// 100 objects changes nothing, and what it plans is exactly what a real run then does.
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import {
  clientKey,
  CRUDResource,
  Framework,
  NotPlannableError,
  Patch,
  plan,
  ResourceSet,
  silentLogger,
  type CRUDResourceOps,
} from 'reconcilekit';
import { startTestEnvironment, waitFor, type TestEnvironment } from 'reconcilekit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Greeting } from '../../examples/greeting-operator/greeting.js';
import { greetingConfigMap } from '../../examples/greeting-operator/greeting-configmap.js';

let env: TestEnvironment;
let ns: string;
const greetingRef = { apiVersion: 'example.com/v1', kind: 'Greeting', plural: 'greetings', namespace: '' };
const cmRef = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: '' };

function framework(ops: CRUDResourceOps<Greeting>[] = [greetingConfigMap]) {
  return new Framework<Greeting>({
    name: 'greeting-operator',
    kubeConfig: env.kubeConfig,
    resource: { ...greetingRef, namespace: ns },
    resourceSets: [new ResourceSet<Greeting>({ resources: ops.map((o) => new CRUDResource({ ops: o })) })],
    logger: silentLogger(),
  });
}

async function snapshot(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const ref of [greetingRef, cmRef]) {
    const list = await env.client.list({ ...ref, namespace: ns });
    for (const o of list.items) out.set(`${o.kind}/${o.metadata?.name}`, o.metadata?.resourceVersion ?? '');
  }
  return out;
}

beforeAll(async () => {
  env = await startTestEnvironment({ crds: ['examples/greeting-operator/crd.yaml'] });
  ns = await env.createNamespace('plan');
  greetingRef.namespace = cmRef.namespace = ns;
  // 100 Greetings: 0–39 without a ConfigMap, 40–69 with an outdated one, 70–99 already in line.
  for (let i = 0; i < 100; i++) {
    const name = `g${i}`;
    await env.client.create({
      ...greetingRef,
      metadata: { name, namespace: ns },
      spec: { message: `hi ${i}` },
    });
    if (i >= 40) {
      const message = i < 70 ? 'old' : `hi ${i}`;
      await env.client.create({
        ...cmRef,
        metadata: { name: `${name}-greeting`, namespace: ns },
        data: { message },
      });
    }
  }
}, 60_000);

afterAll(async () => {
  await env.close();
});

describe('plan', () => {
  it('over 100 objects changes nothing, and a real run then makes exactly the planned changes', async () => {
    const before = await snapshot();
    const events: { type: string; name: string }[] = [];
    const stopWatch = new AbortController();
    const watching = env.client
      .watch(
        { ...cmRef, namespace: ns },
        { signal: stopWatch.signal, resourceVersion: await listRv() },
        (type, o) => {
          if (type !== 'BOOKMARK') events.push({ type, name: o.metadata?.name ?? '' });
        },
      )
      .catch(() => undefined);
    const result = await plan(framework());
    expect(result.objects).toHaveLength(100);
    expect(result.errors).toBe(0);
    expect(result.changes).toBe(70);
    expect(await snapshot()).toEqual(before);

    const planned = new Map(result.objects.map((o) => [o.name, o.resources[0]?.parts ?? []]));
    const g5 = planned.get('g5') ?? [];
    expect(g5.map((p) => p.part)).toEqual(['create']);
    expect(g5[0]?.diff).toContainEqual({ path: 'data.message', after: 'hi 5' });
    const g50 = planned.get('g50') ?? [];
    expect(g50.map((p) => p.part)).toEqual(['update']);
    expect(g50[0]?.diff).toEqual([{ path: 'data.message', before: 'old', after: 'hi 50' }]);
    expect(planned.get('g80')).toEqual([]);

    // The real run: what changed object by object must be what was planned.
    const fw = framework();
    await fw.start();
    try {
      await waitFor(
        async () => {
          const list = await env.client.list<V1ConfigMap>({ ...cmRef, namespace: ns });
          return list.items.length === 100 && list.items.every((c) => c.data?.message?.startsWith('hi'));
        },
        { timeoutMs: 30_000 },
      );
    } finally {
      await fw.stop();
    }
    const after = await snapshot();
    for (let i = 0; i < 100; i++) {
      const key = `ConfigMap/g${i}-greeting`;
      const changed = before.get(key) !== after.get(key);
      expect({ i, changed }).toEqual({ i, changed: (planned.get(`g${i}`) ?? []).length > 0 });
    }
    // Every ConfigMap watch event since before the plan is the real run's: one per planned change, none from planning.
    await waitFor(() => events.length >= 70, { timeoutMs: 30_000 });
    stopWatch.abort();
    await watching;
    const touched = new Set(events.map((e) => e.name.replace(/-greeting$/, '')));
    const plannedNames = [...planned].filter(([, parts]) => parts.length > 0).map(([name]) => name);
    expect([...touched].sort()).toEqual(plannedNames.sort());
  }, 90_000);

  it('reports a resource that writes during planning as not plannable, and a throwing getDesiredState per object', async () => {
    const writer: CRUDResourceOps<Greeting> = {
      name: 'writes-early',
      async getCurrentState(ctx, g) {
        const client = ctx.get(clientKey);
        if (g.metadata.name === 'g1') {
          await client?.create({
            ...cmRef,
            metadata: { name: 'sneaky', namespace: ns },
            data: {},
          } as KubernetesObject);
        }
        return undefined;
      },
      getDesiredState(_ctx, g) {
        if (g.metadata.name === 'g2') throw new Error('desired state of g2 is broken');
        return 'x';
      },
      newUpdatePatch: () => new Patch().setUpdateChange('x'),
      newDeletePatch: () => undefined,
      applyCreateChange: () => undefined,
      applyDeleteChange: () => undefined,
      applyUpdateChange: () => undefined,
    };
    const before = await snapshot();
    const result = await plan(framework([writer]));
    const byName = new Map(result.objects.map((o) => [o.name, o]));
    expect(byName.get('g1')?.resources[0]?.notPlannable).toMatch(/create: a plan never writes/);
    expect(byName.get('g2')?.error).toBe(
      'resource "writes-early" getDesiredState: desired state of g2 is broken',
    );
    expect(byName.get('g3')?.resources[0]?.parts.map((p) => p.part)).toEqual(['update']);
    expect(result.errors).toBe(2);
    expect(
      (await env.client.list({ ...cmRef, namespace: ns })).items.map((c) => c.metadata?.name),
    ).not.toContain('sneaky');
    expect(await snapshot()).toEqual(before);
    expect(NotPlannableError.name).toBe('NotPlannableError');
  }, 60_000);

  it('rejects what is not a Framework with a message saying what to give', async () => {
    await expect(plan({})).rejects.toThrow(/give a Framework/);
  });
});

async function listRv(): Promise<string> {
  const list = await env.client.list({ ...cmRef, namespace: ns });
  return list.metadata.resourceVersion;
}
