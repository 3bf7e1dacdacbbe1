// The sharding option through the other front ends on the embedded API server: a phase reconciler
// (StdK8sReconciler) on two sharded replicas, and a sharded Controller inside an Operator with leader
// election beside a singleton that keeps the leader Lease. Every pass is recorded with its replica and its
// start and end: after a change of every object, each key is reconciled by exactly one replica (the one its
// label names), both replicas have a share, and no key is ever in a pass on two replicas at once. A
// declarative operator refuses the option with a typed error.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Controller,
  DeclarativeOperator,
  isInvalidConfig,
  Operator,
  StdK8sReconciler,
  type ControllerConfig,
} from '../../lib/index.js';
import { createLogger } from '../../lib/observability/logger.js';
import { shardLabels } from '../../lib/sharding/shard-labels.js';
import { eventually, ref, startHarness, widget, WIDGET, type Harness, type Widget } from '../crud/harness.js';

// A lease long enough that a loaded machine (make test beside other work) does not miss a renewal: a
// replica that loses its Lease rejoins under a new shard and its keys move, which these specs do not test
// (spec/sharding/sharded-controller and membership do). A graceful stop releases the Lease at once.
const timing = { leaseDurationMs: 12_000, renewDeadlineMs: 9_000, retryPeriodMs: 300 };
const silent = createLogger({ silent: true });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Pass {
  replica: string;
  key: string;
  n: unknown;
  start: number;
  end: number;
}

/** Throws when a key's passes overlap in time (two replicas, or two passes, at once). */
function expectNoOverlap(passes: Pass[]): void {
  const byKey = new Map<string, Pass[]>();
  for (const p of passes) byKey.set(p.key, [...(byKey.get(p.key) ?? []), p]);
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1] as Pass;
      const cur = list[i] as Pass;
      if (cur.start < prev.end) {
        throw new Error(`${key}: pass on ${cur.replica} started before the pass on ${prev.replica} ended`);
      }
    }
  }
}

/**
 * Patches every widget to `spec.n = n` and waits until each was reconciled at `n` by the replica its
 * label names; returns, per replica, the keys reconciled at `n` (which must not overlap).
 */
async function splitAt(
  h: Harness,
  controller: string,
  shardOf: Record<string, () => string | undefined>,
  passes: Pass[],
  n: number,
): Promise<Map<string, Set<string>>> {
  const label = shardLabels(controller).shard;
  const list = (await h.client.list<Widget>({ ...WIDGET, namespace: 'default' })).items;
  for (const w of list) await h.client.patch(ref(w.metadata?.name ?? ''), { spec: { n } }, 'merge');
  await eventually(
    async () => {
      const now = (await h.client.list<Widget>({ ...WIDGET, namespace: 'default' })).items;
      return now.every((w) => {
        const owner = Object.keys(shardOf).find((r) => shardOf[r]?.() === w.metadata?.labels?.[label]);
        const key = `default/${w.metadata?.name}`;
        return owner !== undefined && passes.some((p) => p.key === key && p.replica === owner && p.n === n);
      });
    },
    15_000,
    `every widget reconciled at n=${n} by its owner`,
  );
  await sleep(300);
  const out = new Map<string, Set<string>>(Object.keys(shardOf).map((r) => [r, new Set<string>()]));
  for (const p of passes) if (p.n === n) out.get(p.replica)?.add(p.key);
  return out;
}

function expectSplit(split: Map<string, Set<string>>, total: number): void {
  const [a, b] = [...split.values()] as [Set<string>, Set<string>];
  expect(a.size).toBeGreaterThan(0);
  expect(b.size).toBeGreaterThan(0);
  expect([...a].filter((k) => b.has(k))).toEqual([]);
  expect(a.size + b.size).toBe(total);
}

describe('sharding option: phase reconcilers', () => {
  let h: Harness;
  const controllers: Controller<Widget>[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    for (const c of controllers.splice(0)) await c.stop();
    await h.close();
  });

  it('a StdK8sReconciler on two sharded replicas: keys split, never on two at once', async () => {
    const passes: Pass[] = [];
    const replica = (name: string): Controller<Widget> => {
      const c = new Controller<Widget>({
        name: 'phased',
        kubeConfig: h.kubeConfig,
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, namespace: 'default' },
        reconciler: new StdK8sReconciler<Widget>({
          status: false,
          phases: [
            {
              name: 'record',
              diff: async (ctx, obj) => {
                const start = performance.now();
                await sleep(3 + Math.random() * 10);
                passes.push({
                  replica: name,
                  key: `${obj.metadata?.namespace}/${obj.metadata?.name}`,
                  n: obj.spec?.n,
                  start,
                  end: performance.now(),
                });
                return {};
              },
            },
          ],
        }),
        sharding: { leaseNamespace: 'default', identity: name, ...timing },
        workers: 3,
        logger: silent,
      });
      controllers.push(c);
      return c;
    };
    const a = replica('a');
    const b = replica('b');
    await Promise.all([a.start(), b.start()]);
    for (let i = 0; i < 24; i++) await h.client.create(widget(`p${i}`, {}, { n: 1 }));
    const split = await splitAt(h, 'phased', { a: () => a.core.shard, b: () => b.core.shard }, passes, 2);
    expectSplit(split, 24);
    expectNoOverlap(passes);
    // The live view's state says which replica owns what; the sharder's shows every shard's count.
    const states = [a, b].map((c) => c.core.debugState().shard);
    expect(states.map((s) => s?.id)).toEqual([a.core.shard, b.core.shard]);
    expect(states.map((s) => s?.owned)).toEqual([split.get('a')?.size, split.get('b')?.size]);
    const sharder = states.filter((s) => s?.sharder === true);
    expect(sharder).toHaveLength(1);
    expect(sharder[0]?.assignment).toEqual({
      [a.core.shard ?? '']: split.get('a')?.size,
      [b.core.shard ?? '']: split.get('b')?.size,
    });
  });
});

describe('sharding option: a sharded controller inside an Operator', () => {
  let h: Harness;
  const cleanups: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await h.close();
  });

  it('two replicas: the sharded controller splits the keys; the singleton runs only on the Lease holder', async () => {
    const passes: Pass[] = [];
    const singleton: string[] = [];
    const controller = (
      name: string,
      extra: Partial<ControllerConfig<Widget>>,
      record: (req: Widget) => Promise<void> | void,
    ): Controller<Widget> =>
      new Controller<Widget>({
        name,
        kubeConfig: h.kubeConfig,
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, namespace: 'default' },
        reconciler: async (_ctx, req) => {
          await record(req.object);
        },
        finalizer: false,
        workers: 3,
        logger: silent,
        ...extra,
      });
    const replica = async (name: string): Promise<Controller<Widget>> => {
      const operator = new Operator({
        kubeConfig: h.kubeConfig,
        logger: silent,
        leaderElection: { leaseName: 'ops', namespace: 'default', identity: name, ...timing },
      });
      cleanups.push(() => operator.stop());
      const sites = controller(
        'sites',
        { sharding: { leaseNamespace: 'default', identity: name, ...timing } },
        async (obj) => {
          const start = performance.now();
          await sleep(3 + Math.random() * 10);
          passes.push({
            replica: name,
            key: `${obj.metadata?.namespace}/${obj.metadata?.name}`,
            n: obj.spec?.n,
            start,
            end: performance.now(),
          });
        },
      );
      operator.addController(sites);
      const single = controller('audit', {}, () => {
        singleton.push(name);
      });
      operator.addController(single);
      await operator.start();
      return sites;
    };
    const [one, two] = await Promise.all([replica('a'), replica('b')]);
    const shards = { a: () => one.core.shard, b: () => two.core.shard };
    for (let i = 0; i < 24; i++) await h.client.create(widget(`o${i}`, {}, { n: 1 }));
    const split = await splitAt(h, 'sites', shards, passes, 2);
    expectSplit(split, 24);
    expectNoOverlap(passes);
    // The singleton ran, and on one replica only: the one holding the operator's Lease.
    expect(singleton.length).toBeGreaterThan(0);
    expect(new Set(singleton).size).toBe(1);
  });
});

describe('sharding option: declarative operators', () => {
  it('refuse the option with a typed error that says why', () => {
    let err: unknown;
    try {
      new DeclarativeOperator(
        'joins',
        {
          controllers: [
            {
              name: 'c',
              sources: [{ apiGroup: '', kind: 'ConfigMap' }],
              pipeline: { '@aggregate': [] },
              target: { kind: 'Out' },
            },
          ],
        },
        { sharding: { leaseNamespace: 'ops' } } as never,
      );
    } catch (e) {
      err = e;
    }
    expect(isInvalidConfig(err)).toBe(true);
    expect((err as Error).message).toMatch(/declarative operator cannot be sharded/);
  });
});
