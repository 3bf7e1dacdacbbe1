// The client of the reconcile context reads from the informer cache (as controller-runtime's manager client
// does) and sees its own writes: an operator written from the README — it GETs its ConfigMap through
// ctx.get(clientKey) and creates it when missing — sends no GET, and its second pass (woken by its own status
// write) makes no failing request: no "already exists", no stale-version conflict. Requests are counted on
// the wire (node:diagnostics_channel), so the same spec holds on the embedded server and on kube-apiserver.
import diagnostics from 'node:diagnostics_channel';
import type http from 'node:http';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ReconcileContext } from '../../lib/context/reconcile-context.js';
import { clientKey } from '../../lib/engine/context-keys.js';
import { Framework } from '../../lib/crud/framework.js';
import { CRUDResource } from '../../lib/crud/resource/crud-resource.js';
import type { CRUDResourceOps } from '../../lib/crud/resource/crud-resource-ops.js';
import { Patch } from '../../lib/crud/resource/patch.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import { isNotFound } from '../../lib/kube/api-error.js';
import { createLogger } from '../../lib/observability/logger.js';
import { InformerCache } from '../../lib/watch/informer-cache.js';
import { eventually, ref, useHarness, widget, WIDGET, type Widget } from './harness.js';

interface Request {
  method: string;
  path: string;
  status: number;
}

/** Every HTTP request a client with `userAgent` sent, with its answer's status code. */
function countRequests(userAgent: string): { requests: Request[]; stop: () => void } {
  const requests: Request[] = [];
  const onFinish = (message: unknown): void => {
    const { request, response } = message as { request: http.ClientRequest; response: http.IncomingMessage };
    if (request.getHeader('user-agent') !== userAgent) return;
    requests.push({ method: request.method, path: request.path, status: response.statusCode ?? 0 });
  };
  diagnostics.subscribe('http.client.response.finish', onFinish);
  return { requests, stop: () => diagnostics.unsubscribe('http.client.response.finish', onFinish) };
}

interface Observed extends Widget {
  status?: { observedGeneration?: number };
}

type ConfigMap = KubernetesObject & { data?: Record<string, string> };

const configMapRef = (w: Widget) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespace: 'default',
  name: `${w.metadata?.name ?? ''}-cached`,
});

/** The README's idiom: read the child through the context client (NotFound → absent), create or replace it. */
function configMapOps(
  passes: Map<string, number>,
): CRUDResourceOps<Observed, ConfigMap | undefined, ConfigMap> {
  const client = (ctx: ReconcileContext) => ctx.get(clientKey)!;
  return {
    name: 'configmap',
    async getCurrentState(ctx, w) {
      const name = w.metadata?.name ?? '';
      passes.set(name, (passes.get(name) ?? 0) + 1);
      try {
        return await client(ctx).get<ConfigMap>(configMapRef(w), { signal: ctx.signal });
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    },
    getDesiredState: (_ctx, w) => {
      const { namespace, name } = configMapRef(w);
      return {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace, name },
        data: { size: JSON.stringify(w.spec?.size ?? null) },
      };
    },
    newUpdatePatch: (_ctx, _w, current, desired) => {
      if (desired === undefined) return undefined;
      if (current === undefined) return new Patch<ConfigMap>().setCreateChange(desired);
      if (current.data?.size === desired.data?.size) return undefined;
      return new Patch<ConfigMap>().setUpdateChange({ ...current, data: desired.data });
    },
    newDeletePatch: () => undefined,
    applyCreateChange: async (ctx, _w, cm) => {
      await client(ctx).create(cm, { signal: ctx.signal });
    },
    applyDeleteChange: () => undefined,
    applyUpdateChange: async (ctx, _w, cm) => {
      await client(ctx).replace(cm, { signal: ctx.signal });
    },
  };
}

const statusOps: CRUDResourceOps<Observed, number | undefined, number> = {
  name: 'status',
  getCurrentState: (_ctx, w) => w.status?.observedGeneration,
  getDesiredState: (_ctx, w) => w.metadata?.generation,
  newUpdatePatch: (_ctx, _w, current, desired) =>
    desired === undefined || current === desired ? undefined : new Patch<number>().setUpdateChange(desired),
  newDeletePatch: () => undefined,
  applyCreateChange: () => undefined,
  applyDeleteChange: () => undefined,
  applyUpdateChange: async (ctx, w, generation) => {
    await ctx
      .get(clientKey)!
      .patch(ref(w.metadata?.name ?? ''), { status: { observedGeneration: generation } }, 'merge', {
        subresource: 'status',
        signal: ctx.signal,
      });
  },
};

const NAME = 'cached-reads';
const USER_AGENT = `reconcilekit/${NAME}`;
const isConfigMapGet = (r: Request) => r.method === 'GET' && /\/configmaps\/[^/?]+$/.test(r.path);

describe('reads through the context client', () => {
  const t = useHarness();
  let wire: ReturnType<typeof countRequests>;
  beforeEach(() => {
    wire = countRequests(USER_AGENT);
  });
  afterEach(() => {
    wire.stop();
  });

  function start(
    passes: Map<string, number>,
    extra: { liveReads?: boolean | { apiVersion: string; kind: string }[]; informers?: InformerCache } = {},
  ): Framework<Observed> {
    const framework = new Framework<Observed>({
      name: NAME,
      kubeConfig: t.h.kubeConfig,
      resource: { ...WIDGET, namespace: 'default' },
      resourceSets: [
        new ResourceSet<Observed>({
          resources: [new CRUDResource({ ops: configMapOps(passes) }), new CRUDResource({ ops: statusOps })],
        }),
      ],
      workers: 8,
      finalizer: false,
      leaderElection: false,
      logger: createLogger({ silent: true }),
      ...extra,
    });
    t.stops.push(() => framework.stop());
    return framework;
  }

  async function converge(names: string[], passes: Map<string, number>): Promise<void> {
    for (const name of names) {
      await eventually(
        async () => {
          const w = await t.h.client.get<Observed>(ref(name));
          const cm = await t.h.client.get<ConfigMap>(configMapRef(w));
          return (
            w.status?.observedGeneration === w.metadata?.generation &&
            cm.data?.size === JSON.stringify(w.spec?.size ?? null)
          );
        },
        15_000,
        `${name} converged`,
      );
    }
    // Every object's status write wakes it once more: wait for those second passes, then for quiet.
    await eventually(() => names.every((n) => (passes.get(n) ?? 0) >= 2), 15_000, 'the second passes');
    await new Promise((r) => setTimeout(r, 300));
  }

  it('sends no GET for a child, and the second pass after its own create and status write makes no request', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `cr-${i}`);
    for (const [i, name] of names.entries()) await t.h.client.create(widget(name, {}, { size: i }));
    const passes = new Map<string, number>();
    await start(passes).start();
    await converge(names, passes);

    const failed = wire.requests.filter((r) => r.status >= 400);
    expect(failed).toEqual([]);
    expect(wire.requests.filter(isConfigMapGet)).toEqual([]);
    // Exactly the writes the work needs: one create per ConfigMap, one status patch per Widget.
    const writes = wire.requests.filter((r) => r.method !== 'GET');
    expect(writes.filter((r) => r.method === 'POST' && r.path.includes('/configmaps'))).toHaveLength(
      names.length,
    );
    expect(writes.filter((r) => r.method === 'PATCH' && r.path.includes('/status'))).toHaveLength(
      names.length,
    );
    expect(writes).toHaveLength(2 * names.length);
  });

  it('sees a change made by someone else once the watch delivers it', async () => {
    await t.h.client.create(widget('outside', {}, { size: 1 }));
    const passes = new Map<string, number>();
    const informers = new InformerCache({ client: t.h.client });
    t.stops.push(() => informers.stop());
    await start(passes, { informers }).start();
    await converge(['outside'], passes);
    // Someone else changes the ConfigMap; once the cache shows it, the next pass (the Widget changes)
    // replaces it on that version.
    const cm = await t.h.client.get<ConfigMap>(configMapRef(widget('outside')));
    await t.h.client.replace({ ...cm, data: { size: 'edited' } });
    const cache = informers.acquire<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' });
    await eventually(
      () => cache.store.get('default/outside-cached')?.data?.size === 'edited',
      15_000,
      'the edit in the cache',
    );
    await informers.release(cache);
    await t.h.client.patch(ref('outside'), { spec: { size: 2 } }, 'merge');
    await eventually(
      async () => {
        const now = await t.h.client.get<ConfigMap>(configMapRef(widget('outside')));
        return now.data?.size === '2';
      },
      15_000,
      'the ConfigMap updated over the outside edit',
    );
    // The replace was made on the version the cache held after the outside edit: no conflict.
    expect(wire.requests.filter((r) => r.status >= 400)).toEqual([]);
    expect(wire.requests.filter((r) => r.method === 'PUT')).toHaveLength(1);
  });

  it('reads live with liveReads: the GETs (and their 404s) go to the API server', async () => {
    const names = ['live-0', 'live-1'];
    for (const name of names) await t.h.client.create(widget(name, {}, { size: 3 }));
    const passes = new Map<string, number>();
    await start(passes, { liveReads: [{ apiVersion: 'v1', kind: 'ConfigMap' }] }).start();
    await converge(names, passes);
    const gets = wire.requests.filter(isConfigMapGet);
    expect(gets.length).toBeGreaterThanOrEqual(2 * names.length);
    expect(gets.filter((r) => r.status === 404)).toHaveLength(names.length);
  });
});
