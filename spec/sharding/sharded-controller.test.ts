// The engine's sharding option on the embedded API server: several replicas of one Controller in one
// process, each with its own client, shard Lease and sharder candidacy. Every pass is recorded with its
// replica and its start and end, so the checks can fail: every object converges on the replica its label
// names, a key is never in a pass on two replicas at once, an object moved to another shard is not taken
// for a deleted one (no cleanup, no 'deleted' pass, the finalizer stays), a graceful stop moves a
// replica's objects within 2 s, and a real deletion still runs its delete path once.
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Controller } from '../../lib/controller/controller.js';
import { Framework } from '../../lib/crud/framework.js';
import { InformerController } from '../../lib/informer-controller/informer-controller.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import type { ReconcileRequest } from '../../lib/controller/reconcile-types.js';
import { createLogger } from '../../lib/observability/logger.js';
import { shardLabels } from '../../lib/sharding/shard-labels.js';
import {
  eventually,
  RecordingResource,
  ref,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from '../crud/harness.js';

const timing = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 };
const N = 30;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Pass {
  replica: string;
  key: string;
  action: string;
  n: unknown;
  start: number;
  end: number;
  /** The object's shard label as the pass saw it. */
  label: string | undefined;
}

describe('sharding option (Controller)', () => {
  let h: Harness;
  const controllers: Controller<Widget>[] = [];
  /** Each replica's metrics, by name. */
  const registries = new Map<string, Registry>();
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    for (const c of controllers.splice(0)) await c.stop();
    await h.close();
  });

  function replica(
    name: string,
    controller: string,
    passes: Pass[],
    cleanups: string[],
    withCleanup: boolean,
    sharder = true,
  ): Controller<Widget> {
    const reconcile = async (_ctx: unknown, req: ReconcileRequest<Widget>) => {
      const key = `${req.object.metadata?.namespace}/${req.object.metadata?.name}`;
      const start = performance.now();
      await sleep(5 + Math.random() * 15);
      passes.push({
        replica: name,
        key,
        action: req.action,
        n: req.object.spec?.n,
        start,
        end: performance.now(),
        label: req.object.metadata?.labels?.[shardLabels(controller).shard],
      });
    };
    const c = new Controller<Widget>({
      name: controller,
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, namespace: 'default' },
      reconciler: withCleanup
        ? {
            reconcile,
            cleanup: async (_ctx, req) => {
              cleanups.push(`${name}:${req.object.metadata?.name}`);
              await sleep(5);
            },
          }
        : reconcile,
      sharding: { leaseNamespace: 'default', identity: name, sharder, ...timing },
      registry: registries.set(name, new Registry()).get(name),
      workers: 4,
      logger: createLogger({ silent: true }),
    });
    controllers.push(c);
    return c;
  }

  async function widgets(): Promise<Widget[]> {
    return (await h.client.list<Widget>({ ...WIDGET, namespace: 'default' })).items;
  }

  /** Every key's passes in time order never overlap (one replica at a time, one pass at a time). */
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

  /** Waits until every object carries a shard label of a live replica and its latest spec.n was reconciled there. */
  async function converged(passes: Pass[], live: Controller<Widget>[], n: number, what: string) {
    const byShard = new Map(live.map((c) => [c.core.shard, c]));
    const deadline = Date.now() + 15_000;
    for (;;) {
      const list = await widgets();
      const label = shardLabels('sites').shard;
      const bad = list.filter((w) => {
        const shard = w.metadata?.labels?.[label];
        const owner = shard === undefined ? undefined : byShard.get(shard);
        if (owner === undefined) return true;
        const replicaName = owner.config.sharding === undefined ? '' : (owner.config.sharding.identity ?? '');
        const key = `default/${w.metadata?.name}`;
        return !passes.some((p) => p.key === key && p.replica === replicaName && p.n === n);
      });
      if (bad.length === 0 && list.length > 0) return list;
      if (Date.now() > deadline) {
        throw new Error(
          `${what}: ${bad.length} not converged, e.g. ${JSON.stringify(bad[0]?.metadata?.labels)}`,
        );
      }
      await sleep(50);
    }
  }

  it('spreads the objects over the replicas, moves them on join and stop without overlap, and tells a move from a delete', async () => {
    const passes: Pass[] = [];
    const cleanups: string[] = [];
    const a = replica('a', 'sites', passes, cleanups, true);
    const b = replica('b', 'sites', passes, cleanups, true);
    await Promise.all([a.start(), b.start()]);
    expect(a.core.shard).toMatch(/^a-[0-9a-f]{8}$/);
    for (let i = 0; i < N; i++) await h.client.create(widget(`w${i}`, {}, { n: 1 }));
    let list = await converged(passes, [a, b], 1, 'two replicas');
    const label = shardLabels('sites').shard;
    const spread = (l: Widget[]) => {
      const m = new Map<string, number>();
      for (const w of l)
        m.set(w.metadata?.labels?.[label] ?? '', (m.get(w.metadata?.labels?.[label] ?? '') ?? 0) + 1);
      return m;
    };
    expect(spread(list).size).toBe(2);

    // A third replica joins: some objects move to it (drained by their old shard first).
    const c = replica('c', 'sites', passes, cleanups, true);
    await c.start();
    await eventually(
      () => passes.some((p) => p.replica === 'c'),
      10_000,
      'the third replica reconciles its share',
    );
    for (const w of list) await h.client.patch(ref(w.metadata?.name ?? ''), { spec: { n: 2 } }, 'merge');
    list = await converged(passes, [a, b, c], 2, 'three replicas');
    expect(spread(list).size).toBe(3);
    expect(cleanups).toEqual([]);
    expect(passes.filter((p) => p.action === 'deleted')).toEqual([]);
    for (const w of list) expect(w.metadata?.finalizers).toContain('reconcilekit.io/sites');

    // b stops gracefully: its objects are reconciled elsewhere within 2 s of its stop.
    const bShard = b.core.shard;
    const bKeys = list
      .filter((w) => w.metadata?.labels?.[label] === bShard)
      .map((w) => `default/${w.metadata?.name}`);
    expect(bKeys.length).toBeGreaterThan(0);
    const before = passes.length;
    const stoppedAt = performance.now();
    await b.stop();
    await eventually(
      () => bKeys.every((k) => passes.slice(before).some((p) => p.key === k && p.replica !== 'b')),
      5_000,
      "b's objects reconciled by a and c",
    );
    const movedWithin = Math.max(
      ...bKeys.map(
        (k) => (passes.slice(before).find((p) => p.key === k && p.replica !== 'b')?.start ?? 0) - stoppedAt,
      ),
    );
    // Moved, not timed: the 2 s limit is asserted on kube-apiserver (spec/real/sharding.real.test.ts); here a
    // loaded machine must not fail make test.
    expect(movedWithin).toBeLessThan(5_000);
    expect(cleanups).toEqual([]);
    // b wrote no label: a and c adopted its keys from the ring it recorded on its Lease.
    const handedOff = await handovers('b', 'hand-off');
    expect(handedOff).toBe(0);

    // A real deletion runs the cleanup once, on the object's shard, and the object goes.
    await h.client.delete(ref('w7'));
    await eventually(() => cleanups.length === 1, 5_000, 'cleanup of w7');
    for (let i = 0; i < 50; i++) {
      if ((await widgets()).every((w) => w.metadata?.name !== 'w7')) break;
      await sleep(50);
    }
    expect((await widgets()).map((w) => w.metadata?.name)).not.toContain('w7');
    await sleep(300);
    expect(cleanups).toHaveLength(1);
    expectNoOverlap(passes);
  });

  /** A replica's `reconcilekit_shard_handovers_total` of one kind. */
  async function handovers(name: string, how: string): Promise<number> {
    const metric = await registries.get(name)?.getSingleMetric('reconcilekit_shard_handovers_total')?.get();
    return (metric?.values ?? []).filter((v) => v.labels.how === how).reduce((sum, v) => sum + v.value, 0);
  }

  it('a graceful stop hands its keys over by adoption: their recorded owners reconcile them while the labels still name the stopped shard', async () => {
    const passes: Pass[] = [];
    // Only d campaigns for the sharder, and d stops first (its sharder relabels its objects as it goes):
    // then no one relabels b's objects when b stops, so every pass of them on a or c is an adoption.
    const d = replica('d', 'sites', passes, [], false);
    await d.start();
    const [a, b, c] = ['a', 'b', 'c'].map((name) => replica(name, 'sites', passes, [], false, false)) as [
      Controller<Widget>,
      Controller<Widget>,
      Controller<Widget>,
    ];
    await Promise.all([a.start(), b.start(), c.start()]);
    for (let i = 0; i < N; i++) await h.client.create(widget(`w${i}`, {}, { n: 1 }));
    await converged(passes, [a, b, c, d], 1, 'four replicas');
    await d.stop();
    const list = await converged(passes, [a, b, c], 1, 'three replicas, no sharder');
    const label = shardLabels('sites').shard;
    const bShard = b.core.shard;
    const bKeys = list
      .filter((w) => w.metadata?.labels?.[label] === bShard)
      .map((w) => `default/${w.metadata?.name}`);
    expect(bKeys.length).toBeGreaterThan(1);
    const before = passes.length;
    const adoptedBefore = { a: await handovers('a', 'adopt'), c: await handovers('c', 'adopt') };
    await b.stop();
    const after = (): Pass[] => passes.slice(before).filter((p) => p.replica !== 'b');
    await eventually(
      () => bKeys.every((k) => after().some((p) => p.key === k)),
      5_000,
      "b's keys reconciled by a and c",
    );
    // Each ran while its label still named b's shard: no write moved it.
    for (const k of bKeys) expect(after().find((p) => p.key === k)?.label).toBe(bShard);
    const still = (await widgets()).filter((w) => w.metadata?.labels?.[label] === bShard);
    expect(still).toHaveLength(bKeys.length);
    expect(await handovers('b', 'hand-off')).toBe(0);
    // Each key adopted once, by its recorded owner; both survivors got a share.
    const adoptedBy = {
      a: (await handovers('a', 'adopt')) - adoptedBefore.a,
      c: (await handovers('c', 'adopt')) - adoptedBefore.c,
    };
    expect(adoptedBy.a + adoptedBy.c).toBe(bKeys.length);
    expect(new Set(bKeys.map((k) => after().find((p) => p.key === k)?.replica)).size).toBe(
      [adoptedBy.a, adoptedBy.c].filter((n) => n > 0).length,
    );
    // A change to an adopted object reaches its adopter through the adoption watch.
    const changed = bKeys[0]?.slice('default/'.length) ?? '';
    await h.client.patch(ref(changed), { spec: { n: 2 } }, 'merge');
    await eventually(
      () => after().some((p) => p.key === `default/${changed}` && p.n === 2),
      5_000,
      'the change of an adopted object reconciled',
    );
    expectNoOverlap(passes);
  });

  it('without a finalizer, a moved object gets no deleted pass; a deleted one gets exactly one', async () => {
    const passes: Pass[] = [];
    const a = replica('a', 'sites', passes, [], false);
    await a.start();
    for (let i = 0; i < 12; i++) await h.client.create(widget(`v${i}`, {}, { n: 1 }));
    await converged(passes, [a], 1, 'one replica');
    const b = replica('b', 'sites', passes, [], false);
    await b.start();
    await eventually(() => passes.some((p) => p.replica === 'b'), 10_000, 'b reconciles its share');
    await sleep(500);
    expect(passes.filter((p) => p.action === 'deleted')).toEqual([]);
    await h.client.delete(ref('v3'));
    await eventually(() => passes.some((p) => p.action === 'deleted'), 5_000, 'the deleted pass of v3');
    await sleep(300);
    expect(passes.filter((p) => p.action === 'deleted').map((p) => p.key)).toEqual(['default/v3']);
    expectNoOverlap(passes);
  });
});

describe('sharding option (Framework)', () => {
  let h: Harness;
  const frameworks: Framework<Widget>[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    for (const f of frameworks.splice(0)) await f.stop();
    await h.close();
  });

  it('two replicas share one recorder: every object reconciled, never twice at once, a stop moves the rest, a delete cleans up once', async () => {
    // One resource instance behind both replicas: its per-key in-flight count sees overlap across them.
    const recorder = new RecordingResource();
    recorder.onCreate = () => sleep(5 + Math.random() * 10);
    const start = async (name: string) => {
      const f = new Framework<Widget>({
        name: 'pages',
        kubeConfig: h.kubeConfig,
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, namespace: 'default' },
        resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
        sharding: { leaseNamespace: 'default', identity: name, ...timing },
        workers: 3,
        logger: createLogger({ silent: true }),
      });
      frameworks.push(f);
      await f.start();
      return f;
    };
    const a = await start('a');
    const b = await start('b');
    for (let i = 0; i < 20; i++) await h.client.create(widget(`p${i}`, {}, { n: 1 }));
    const label = shardLabels('pages').shard;
    await eventually(
      async () => {
        const list = (await h.client.list<Widget>({ ...WIDGET, namespace: 'default' })).items;
        return list.every(
          (w) =>
            [a.core.shard, b.core.shard].includes(w.metadata?.labels?.[label]) &&
            (w.metadata?.finalizers ?? []).length > 0 &&
            recorder.count('create', w.metadata?.name) > 0,
        );
      },
      10_000,
      'every page labelled, finalized and reconciled',
    );
    const shards = new Set(
      (await h.client.list<Widget>({ ...WIDGET, namespace: 'default' })).items.map(
        (w) => w.metadata?.labels?.[label],
      ),
    );
    expect(shards.size).toBe(2);

    await a.stop();
    for (let i = 0; i < 20; i++) await h.client.patch(ref(`p${i}`), { spec: { n: 2 } }, 'merge');
    await eventually(
      async () => {
        const list = (await h.client.list<Widget>({ ...WIDGET, namespace: 'default' })).items;
        return list.every(
          (w) =>
            w.metadata?.labels?.[label] === b.core.shard &&
            recorder.calls.some(
              (c) => c.key === `default/${w.metadata?.name}` && c.version === w.metadata?.resourceVersion,
            ),
        );
      },
      10_000,
      'every page on b, reconciled at its latest version',
    );
    expect(recorder.count('delete')).toBe(0);
    await h.client.delete(ref('p4'));
    await eventually(() => recorder.count('delete', 'p4') === 1, 5_000, 'the delete path of p4');
    await sleep(300);
    expect(recorder.count('delete')).toBe(1);
    expect(recorder.maxConcurrentPerKey).toBe(1);
  });
});

describe('sharding option: bad input', () => {
  const base = {
    name: 'sites',
    resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
    reconciler: () => undefined,
    logger: createLogger({ silent: true }),
  };
  it.each([
    [{ sharding: { leaseNamespace: '' } }, /leaseNamespace must name the namespace/],
    [{ sharding: 'yes' }, /config.sharding must be/],
    [{ sharding: { leaseNamespace: 'ops', shardKey: 'uid' } }, /shardKey must be 'name', 'namespace'/],
    [
      { sharding: { leaseNamespace: 'ops', leaseDurationMs: 1000, renewDeadlineMs: 2000 } },
      /leaseDurationMs > renewDeadlineMs > retryPeriodMs/,
    ],
    [
      { sharding: { leaseNamespace: 'ops' }, leaderElection: { leaseName: 'l', namespace: 'ops' } },
      /exclude each other/,
    ],
    [
      { sharding: { leaseNamespace: 'ops' }, resource: { ...base.resource, namespaces: ['a', 'b'] } },
      /drop resource.namespaces/,
    ],
  ])('refuses %j with a clear error', (extra, message) => {
    expect(() => new Controller<Widget>({ ...base, ...extra } as never)).toThrow(message);
  });
});

describe('sharding option: front ends without it', () => {
  it('an InformerController refuses the option with a clear error', () => {
    expect(
      () =>
        new InformerController({
          sharding: { leaseNamespace: 'ops' },
          logger: createLogger({ silent: true }),
        }),
    ).toThrow(/InformerController cannot be sharded yet/);
  });
});
