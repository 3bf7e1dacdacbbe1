// The live view's per-pass detail on a real Framework against the embedded API server: what triggered each
// pass (primary watch event, owned child, finalizer patch, retry, requeue), each CRUD step's duration and
// the patch parts applied (counts and names, never contents), in /debug/api/object.
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { ReconcileContext } from '../../lib/context/reconcile-context.js';
import type { ObjectHistory, PassRecord } from '../../lib/debug/history-recorder.js';
import { Framework } from '../../lib/crud/framework.js';
import { clientKey } from '../../lib/engine/context-keys.js';
import { requeueAfter } from '../../lib/engine/requeue.js';
import { createLogger } from '../../lib/observability/logger.js';
import { CRUDResource } from '../../lib/crud/resource/crud-resource.js';
import { Patch } from '../../lib/crud/resource/patch.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import { eventually, useHarness, widget, WIDGET, type Widget } from '../crud/harness.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' } as const;
const SECRET_VALUE = 'do-not-show-this-value';

async function history(url: string, name: string): Promise<PassRecord[]> {
  const res = await fetch(
    `${url}/debug/api/object?controller=cms&key=${encodeURIComponent(`default/${name}`)}`,
  );
  if (res.status !== 200) return [];
  return ((await res.json()) as ObjectHistory).passes;
}

describe('live view: per-pass detail', () => {
  const t = useHarness();

  function start(behaviour: { failOnce?: Set<string>; requeue?: Set<string> }): Framework<Widget> {
    const client = () => t.h.client;
    const configmap = new CRUDResource<Widget, KubernetesObject | undefined, KubernetesObject[]>({
      ops: {
        name: 'configmap',
        getCurrentState: async (_ctx, obj) => {
          try {
            return await client().get({ ...CM, namespace: 'default', name: `${obj.metadata?.name}-cm` });
          } catch {
            return undefined;
          }
        },
        getDesiredState: (ctx, obj) => {
          if (behaviour.requeue?.has(obj.metadata?.name ?? '') === true) requeueAfter(ctx, 20);
          return {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: `${obj.metadata?.name}-cm`,
              namespace: 'default',
              ownerReferences: [
                {
                  apiVersion: WIDGET.apiVersion,
                  kind: WIDGET.kind,
                  name: obj.metadata?.name ?? '',
                  uid: obj.metadata?.uid ?? '',
                  controller: true,
                },
              ],
            },
            data: { token: SECRET_VALUE },
          };
        },
        newUpdatePatch: (_ctx, _obj, current, desired) =>
          current === undefined && desired !== undefined
            ? new Patch<KubernetesObject[]>().setCreateChange([desired])
            : undefined,
        newDeletePatch: () => undefined,
        applyCreateChange: async (ctx: ReconcileContext, obj, change) => {
          const name = obj.metadata?.name ?? '';
          if (behaviour.failOnce?.delete(name) === true) throw new Error('quota exceeded, try later');
          for (const cm of change) await ctx.get(clientKey)?.create(cm);
        },
        applyDeleteChange: () => undefined,
        applyUpdateChange: () => undefined,
      },
    });
    const fw = new Framework<Widget>({
      name: 'cms',
      kubeConfig: t.h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
      resourceSets: [new ResourceSet<Widget>({ resources: [configmap] })],
      debugPage: true,
      healthServer: { host: '127.0.0.1', port: 0 },
      logger: createLogger({ silent: true }),
    });
    t.stops.push(() => fw.stop());
    return fw;
  }

  it('names the trigger of each pass, times each CRUD step and lists applied parts by name only', async () => {
    const fw = start({});
    await fw.start();
    const url = fw.healthUrl ?? '';
    // Someone opens the live view: from now on passes record their step durations and patch parts.
    expect((await fetch(`${url}/debug/api/objects`)).status).toBe(200);
    await t.h.client.create(widget('alpha'));
    const created = await eventually(
      async () => (await history(url, 'alpha')).find((p) => p.resources?.[0]?.applied !== undefined),
      15_000,
      'a pass that created the ConfigMap',
    );
    const passes = await history(url, 'alpha');
    // The first pass came from the watch's add event and only added the finalizer; the next ran for that.
    expect(passes[0]?.trigger).toEqual({ reason: 'watch', event: 'add' });
    expect(passes[1]?.trigger?.reason).toMatch(/^(finalizer|watch)$/);
    const resource = created.resources?.[0];
    expect(resource?.resource).toBe('configmap');
    expect(Object.keys(resource?.steps ?? {})).toEqual([
      'getCurrentState',
      'getDesiredState',
      'newUpdatePatch',
      'applyCreateChange',
    ]);
    for (const ms of Object.values(resource?.steps ?? {})) expect(ms).toBeGreaterThanOrEqual(0);
    expect(resource?.applied).toEqual([{ part: 'create', count: 1, names: ['default/alpha-cm'] }]);

    // The owned ConfigMap goes away: the next pass says so, naming the child.
    await t.h.client.delete({ ...CM, namespace: 'default', name: 'alpha-cm' });
    const owned = await eventually(
      async () => (await history(url, 'alpha')).find((p) => p.trigger?.reason === 'owned'),
      15_000,
      'a pass triggered by the owned ConfigMap',
    );
    expect(owned.trigger?.source).toBe('ConfigMap default/alpha-cm');
    expect(['add', 'update', 'delete']).toContain(owned.trigger?.event);

    const body = await (
      await fetch(`${url}/debug/api/object?controller=cms&key=${encodeURIComponent('default/alpha')}`)
    ).text();
    expect(body).not.toContain(SECRET_VALUE);
    // The summary row carries the trigger but not the per-resource detail.
    const list = (await (await fetch(`${url}/debug/api/objects?search=alpha`)).json()) as {
      objects: Record<string, unknown>[];
    };
    expect(list.objects[0]?.trigger).toBeDefined();
    expect(list.objects[0]?.resources).toBeUndefined();
  });

  it('records step detail only while someone looks: nobody asked, a pass keeps its summary and trigger', async () => {
    const fw = start({});
    await fw.start();
    const history = fw.core.history;
    if (history === undefined) throw new Error('debugPage is on');
    await t.h.client.create(widget('quiet'));
    // Read the history in process (an HTTP request would count as looking).
    await eventually(
      () =>
        t.h.client.get({ ...CM, namespace: 'default', name: 'quiet-cm' }).then(
          () => true,
          () => false,
        ),
      15_000,
      'the ConfigMap',
    );
    const unseen = await eventually(
      () => history.history('cms', 'default/quiet')?.passes,
      15_000,
      'passes nobody looked at',
    );
    expect(unseen[0]?.trigger).toEqual({ reason: 'watch', event: 'add' });
    expect(history.history('cms', 'default/quiet')?.passes.every((p) => p.resources === undefined)).toBe(
      true,
    );
    // Someone opens the page: the next pass (the ConfigMap deleted, so it is created again) carries its detail.
    const url = fw.healthUrl ?? '';
    expect((await fetch(`${url}/debug/`)).status).toBe(200);
    await t.h.client.delete({ ...CM, namespace: 'default', name: 'quiet-cm' });
    const seen = await eventually(
      () =>
        history.history('cms', 'default/quiet')?.passes.find((p) => p.resources?.[0]?.applied !== undefined),
      15_000,
      'a pass with detail',
    );
    expect(seen.trigger?.reason).toBe('owned');
  });

  it('a failed step is named and its next pass says retry; a requeueAfter pass says requeue', async () => {
    const fw = start({ failOnce: new Set(['flaky']), requeue: new Set(['poll']) });
    await fw.start();
    const url = fw.healthUrl ?? '';
    expect((await fetch(`${url}/debug/api/objects`)).status).toBe(200);
    await t.h.client.create(widget('flaky'));
    await t.h.client.create(widget('poll'));
    const failed = await eventually(
      async () => (await history(url, 'flaky')).find((p) => p.result === 'error'),
      15_000,
      'the failed pass',
    );
    expect(failed.resources?.[0]?.failedStep).toBe('applyCreateChange');
    expect(failed.resources?.[0]?.steps.applyCreateChange).toBeGreaterThanOrEqual(0);
    const retried = await eventually(
      async () => {
        const passes = await history(url, 'flaky');
        const i = passes.findIndex((p) => p.result === 'error');
        return passes[i + 1];
      },
      15_000,
      'the pass after the failure',
    );
    // The retry, unless the watch event of our own error condition arrived first (then that event).
    expect(retried.trigger?.reason).toMatch(/^(retry|watch)$/);
    expect(retried.attempt).toBe(1);
    const requeued = await eventually(
      async () => (await history(url, 'poll')).find((p) => p.trigger?.reason === 'requeue'),
      15_000,
      'a pass triggered by requeueAfter',
    );
    expect(requeued.result).toBe('requeue_after');
  });
});
