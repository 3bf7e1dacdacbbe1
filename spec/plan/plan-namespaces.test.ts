// plan() looks only where the operator would: a resource with `namespaces` (or one `namespace`) is listed in
// those namespaces only, owned kinds are cached from the same ones, and the plan's own `namespace` option
// narrows that set (a namespace the operator does not watch plans nothing). Embedded API server.
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  cacheKey,
  clientKey,
  Controller,
  CRUDResource,
  Framework,
  plan,
  ResourceSet,
  silentLogger,
  type Plan,
} from 'reconcilekit';
import { startTestEnvironment, type TestEnvironment } from 'reconcilekit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Greeting } from '../../examples/greeting-operator/greeting.js';
import { greetingConfigMap } from '../../examples/greeting-operator/greeting-configmap.js';

let env: TestEnvironment;
let a: string;
let b: string;
let c: string;
const greetingRef = { apiVersion: 'example.com/v1', kind: 'Greeting', plural: 'greetings' };
const cmRef = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };

/** Writes `<name>-seen` with the namespaces of the ConfigMaps its cache holds. */
function controller(scope: { namespace?: string; namespaces?: string[] }): Controller<Greeting> {
  return new Controller<Greeting>({
    name: 'seen',
    kubeConfig: env.kubeConfig,
    resource: { ...greetingRef, ...scope },
    owns: [cmRef],
    finalizer: false,
    logger: silentLogger(),
    reconciler: async (ctx, { object }) => {
      const cached = ctx.get(cacheKey)?.('ConfigMap', 'v1')?.list() ?? [];
      const seen = [...new Set(cached.map((o) => o.metadata?.namespace ?? ''))].sort().join(',');
      await ctx.get(clientKey)?.create({
        ...cmRef,
        metadata: { name: `${object.metadata.name}-seen`, namespace: object.metadata.namespace },
        data: { seen },
      } as KubernetesObject);
    },
  });
}

function framework(namespaces: string[]): Framework<Greeting> {
  return new Framework<Greeting>({
    name: 'greeting-operator',
    kubeConfig: env.kubeConfig,
    resource: { ...greetingRef, namespaces },
    resourceSets: [new ResourceSet<Greeting>({ resources: [new CRUDResource({ ops: greetingConfigMap })] })],
    logger: silentLogger(),
  });
}

const where = (p: Plan): string[] => p.objects.map((o) => `${o.namespace ?? ''}/${o.name}`).sort();

/** The `seen` value each planned object's write would leave. */
function seen(p: Plan): string[] {
  return p.objects.map((o) => {
    const after = o.resources[0]?.parts[0]?.after as { data?: { seen?: string } } | undefined;
    return after?.data?.seen ?? `(no write: ${o.error ?? 'none'})`;
  });
}

beforeAll(async () => {
  env = await startTestEnvironment({ crds: ['examples/greeting-operator/crd.yaml'] });
  a = await env.createNamespace('plan-a');
  b = await env.createNamespace('plan-b');
  c = await env.createNamespace('plan-c');
  for (const ns of [a, b, c]) {
    for (const name of ['g1', 'g2']) {
      await env.client.create({
        ...greetingRef,
        metadata: { name, namespace: ns },
        spec: { message: `hello from ${ns}` },
      } as KubernetesObject);
    }
    await env.client.create({
      ...cmRef,
      metadata: { name: 'marker', namespace: ns },
      data: {},
    } as KubernetesObject);
  }
}, 60_000);

afterAll(async () => {
  await env.close();
});

describe('plan and the namespaces an operator watches', () => {
  it('plans a Controller with namespaces over those namespaces only, its owned cache from the same', async () => {
    const result = await plan(controller({ namespaces: [a, b] }));
    expect(where(result)).toEqual([`${a}/g1`, `${a}/g2`, `${b}/g1`, `${b}/g2`]);
    expect(seen(result)).toEqual(Array.from({ length: 4 }, () => [a, b].sort().join(',')));
    expect(result.errors).toBe(0);
  });

  it("narrows to the plan's namespace where the operator watches it, and plans nothing where it does not", async () => {
    const inB = await plan(controller({ namespaces: [a, b] }), { namespace: b });
    expect(where(inB)).toEqual([`${b}/g1`, `${b}/g2`]);
    expect(seen(inB)).toEqual([b, b]);
    expect((await plan(controller({ namespaces: [a, b] }), { namespace: c })).objects).toEqual([]);
    expect((await plan(controller({ namespace: a }), { namespace: c })).objects).toEqual([]);
    const all = await plan(controller({}), { namespace: c });
    expect(where(all)).toEqual([`${c}/g1`, `${c}/g2`]);
  });

  it('plans a Framework with namespaces over those namespaces only', async () => {
    const result = await plan(framework([b, c]));
    expect(where(result)).toEqual([`${b}/g1`, `${b}/g2`, `${c}/g1`, `${c}/g2`]);
    const creates = result.objects.flatMap((o) => o.resources.flatMap((r) => r.parts.map((p) => p.part)));
    expect(creates).toEqual(['create', 'create', 'create', 'create']);
    expect((await plan(framework([b, c]), { namespace: a })).objects).toEqual([]);
  });

  it('changes nothing on the server', async () => {
    for (const ns of [a, b, c]) {
      const list = await env.client.list({ ...cmRef, namespace: ns });
      expect(list.items.map((o) => o.metadata?.name)).toEqual(['marker']);
    }
  });
});
