// Owned children follow their owner's shard (the `sharding.children: 'follow'` default): the sharder labels
// each owned ConfigMap with its owner's shard, each replica's cache of ConfigMaps holds only its own
// owners' children, and when a replica stops its owners move with their children. With
// `children: 'all'` the children carry no label and every replica caches all of them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Controller, isAlreadyExists, type ControllerConfig } from '../../lib/index.js';
import { createLogger } from '../../lib/observability/logger.js';
import { shardLabels } from '../../lib/sharding/shard-labels.js';
import { eventually, startHarness, widget, WIDGET, type Harness, type Widget } from '../crud/harness.js';

// A lease long enough that a loaded machine (make test beside other work) does not miss a renewal: a
// replica that loses its Lease rejoins under a new shard and its keys move, which these specs do not test
// (spec/sharding/sharded-controller and membership do). A graceful stop releases the Lease at once.
const timing = { leaseDurationMs: 12_000, renewDeadlineMs: 9_000, retryPeriodMs: 300 };
const silent = createLogger({ silent: true });
const N = 16;
const CM = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' } as const;

describe('sharding option: owned children', () => {
  let h: Harness;
  const controllers: Controller<Widget>[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    for (const c of controllers.splice(0)) await c.stop();
    await h.close();
  });

  function replica(
    name: string,
    extra: Partial<ControllerConfig<Widget>['sharding']> = {},
  ): Controller<Widget> {
    const c = new Controller<Widget>({
      name: 'kids',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, namespace: 'default' },
      owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
      finalizer: false,
      reconciler: async (ctx, req) => {
        const owner = req.object;
        try {
          await h.client.create({
            ...CM,
            metadata: {
              name: `child-${owner.metadata?.name}`,
              namespace: 'default',
              ownerReferences: [
                {
                  apiVersion: WIDGET.apiVersion,
                  kind: WIDGET.kind,
                  name: owner.metadata?.name ?? '',
                  uid: owner.metadata?.uid ?? '',
                  controller: true,
                },
              ],
            },
            data: { owner: owner.metadata?.name ?? '' },
          });
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
        }
        ctx.logger.debug('child ensured');
      },
      sharding: { leaseNamespace: 'default', identity: name, ...timing, ...extra },
      workers: 3,
      logger: silent,
    });
    controllers.push(c);
    return c;
  }

  const label = shardLabels('kids').shard;
  const list = async <T extends { metadata?: { labels?: Record<string, string>; name?: string } }>(
    kind: typeof CM | typeof WIDGET,
  ) => (await h.client.list<T & Widget>({ ...kind, namespace: 'default' })).items;

  /** Every child carries its owner's shard label; returns the children's names by shard. */
  async function childrenFollow(): Promise<Map<string, string[]> | undefined> {
    const owners = new Map((await list(WIDGET)).map((w) => [w.metadata?.name, w.metadata?.labels?.[label]]));
    const children = await list(CM);
    if (children.length !== N) return undefined;
    const byShard = new Map<string, string[]>();
    for (const cm of children) {
      const shard = cm.metadata?.labels?.[label];
      const owner = (cm as { data?: { owner?: string } }).data?.owner;
      if (shard === undefined || shard !== owners.get(owner)) return undefined;
      byShard.set(shard, [...(byShard.get(shard) ?? []), cm.metadata?.name ?? '']);
    }
    return byShard;
  }

  const cached = (c: Controller<Widget>): string[] =>
    (c.core.cache('ConfigMap', 'v1')?.list() ?? []).map((cm) => cm.metadata?.name ?? '').sort();

  it("labels each child with its owner's shard; each replica caches only its own children; a stop moves them", async () => {
    const a = replica('a');
    const b = replica('b');
    await Promise.all([a.start(), b.start()]);
    for (let i = 0; i < N; i++) await h.client.create(widget(`k${i}`, {}, { n: 1 }));
    const byShard = await eventually(childrenFollow, 15_000, "every child labelled with its owner's shard");
    expect(byShard.size).toBe(2);
    const mine = (c: Controller<Widget>) => [...(byShard.get(c.core.shard ?? '') ?? [])].sort();
    expect(mine(a).length).toBeGreaterThan(0);
    expect(mine(b).length).toBeGreaterThan(0);
    // The children's caches shrink with the shard: each replica holds exactly its owners' children.
    await eventually(
      () => cached(a).join() === mine(a).join() && cached(b).join() === mine(b).join(),
      5_000,
      "each replica's ConfigMap cache to hold its own children only",
    );

    // a stops: its owners and their children move to b, whose cache then holds every child.
    await a.stop();
    await eventually(
      async () => {
        const now = await childrenFollow();
        return now !== undefined && now.size === 1 && now.has(b.core.shard ?? '');
      },
      10_000,
      "a's children relabelled for b",
    );
    await eventually(() => cached(b).length === N, 5_000, "b's cache to hold every child");
  });

  it("with children: 'all' the children carry no label and every replica caches all of them", async () => {
    const a = replica('a', { children: 'all' });
    const b = replica('b', { children: 'all' });
    await Promise.all([a.start(), b.start()]);
    for (let i = 0; i < N; i++) await h.client.create(widget(`k${i}`, {}, { n: 1 }));
    await eventually(async () => (await list(CM)).length === N, 15_000, 'every child created');
    await eventually(() => cached(a).length === N && cached(b).length === N, 5_000, 'both caches full');
    expect((await list(CM)).filter((cm) => cm.metadata?.labels?.[label] !== undefined)).toEqual([]);
  });
});
