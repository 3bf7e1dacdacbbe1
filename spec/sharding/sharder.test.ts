// The sharder on the embedded API server, with shard members but no engine: the acknowledging side of
// the drain protocol is played by a small loop per member (remove both labels of a drained object that
// still names it), as the engine does in the key's pass slot. Checks: every object labelled with a ready
// shard, spread, a join moves only the objects whose owner changes and only through drain from a live
// shard, a graceful stop moves the leaver's objects at once, and a label pointing at no live shard is
// corrected.
import type { KubernetesObject } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { ObjectClient } from '../../lib/kube/object-client.js';
import { silentLogger } from '../../lib/observability/logger-silent.js';
import { HashRing } from '../../lib/sharding/hash-ring.js';
import {
  SHARD_ID_LABEL,
  SHARD_IDENTITY_LABEL,
  SHARD_REAPED_ANNOTATION,
  SHARD_RING_LABEL,
  shardLabels,
} from '../../lib/sharding/shard-labels.js';
import { ShardMember, type ShardTerm } from '../../lib/sharding/shard-member.js';
import { Sharder } from '../../lib/sharding/sharder.js';
import { eventually, startEmbeddedCluster, type EmbeddedCluster } from '../kube/embedded-server.js';

const cmRef = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' };
const labels = shardLabels('sites');
const timing = { leaseDurationMs: 8000, renewDeadlineMs: 6000, retryPeriodMs: 300 };
const N = 40;

async function objects(client: ObjectClient): Promise<KubernetesObject[]> {
  const list = await client.list(cmRef, { labelSelector: 'app=site' });
  return list.items;
}

function shardOf(obj: KubernetesObject): string {
  return obj.metadata?.labels?.[labels.shard] ?? '';
}

/** A member and the acknowledging loop of its shard; `drained` records every drain it acknowledged. */
function startMember(client: ObjectClient, name: string, drained: Set<string>) {
  const stop = new AbortController();
  let term: ShardTerm | undefined;
  const run = new ShardMember({
    client,
    controller: 'sites',
    namespace: 'default',
    identity: name,
    ...timing,
    logger: silentLogger(),
  }).run(stop.signal, {
    joined: (t) => {
      term = t;
    },
    left: () => {
      term = undefined;
    },
  });
  const ack = (async () => {
    while (!stop.signal.aborted) {
      const shard = term?.shard;
      if (shard !== undefined) {
        for (const obj of await objects(client)) {
          const l = obj.metadata?.labels ?? {};
          if (l[labels.shard] !== shard || l[labels.drain] === undefined) continue;
          drained.add(obj.metadata?.name ?? '');
          const esc = (k: string) => `/metadata/labels/${k.replace(/\//g, '~1')}`;
          await client
            .patch(
              { ...cmRef, name: obj.metadata?.name ?? '' },
              [
                { op: 'test', path: esc(labels.shard), value: shard },
                { op: 'remove', path: esc(labels.shard) },
                { op: 'remove', path: esc(labels.drain) },
              ],
              'json',
            )
            .catch(() => undefined);
        }
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    shard: () => term?.shard,
    async stop() {
      stop.abort();
      await Promise.all([run, ack]);
    },
  };
}

describe('Sharder', () => {
  let cluster: EmbeddedCluster | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    await cluster?.close();
  });

  it('labels every object, moves only changed owners (through drain from live shards), and reacts to a leave and a bad label', async () => {
    cluster = await startEmbeddedCluster();
    const client = cluster.client;
    for (let i = 0; i < N; i++) {
      await client.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `site-${i}`, namespace: 'default', labels: { app: 'site' } },
        data: { page: `<h1>site ${i}</h1>` },
      } as KubernetesObject);
    }
    const drained = new Set<string>();
    const a = startMember(client, 'a', drained);
    const b = startMember(client, 'b', drained);
    cleanups.push(
      () => a.stop(),
      () => b.stop(),
    );
    const registry = new Registry();
    const stopSharder = new AbortController();
    const sharder = new Sharder({
      client,
      controller: 'sites',
      resource: { ...cmRef, labelSelector: 'app=site' },
      leaseNamespace: 'default',
      identity: 'sharder-1',
      ...timing,
      logger: silentLogger(),
      registry,
    });
    const sharderRun = sharder.run(stopSharder.signal);
    cleanups.push(async () => {
      stopSharder.abort();
      await sharderRun;
    });
    await eventually(() => a.shard() !== undefined && b.shard() !== undefined, 5000, 'members joined');
    // The ring places members by identity (a, b, c); an object's label names the member's shard id.
    const ringOf = (members: Record<string, () => string | undefined>) => {
      const ring = new HashRing(Object.keys(members));
      return (key: string) => members[ring.owner(key) as string]?.();
    };
    const ring2 = ringOf({ a: a.shard, b: b.shard });
    let current: KubernetesObject[] = [];
    const settled = async (owner: (key: string) => string | undefined, what: string) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        current = await objects(client);
        const ok = current.every(
          (o) =>
            shardOf(o) === owner(o.metadata?.name === undefined ? '' : `default/${o.metadata.name}`) &&
            o.metadata?.labels?.[labels.drain] === undefined,
        );
        if (ok) return;
        if (Date.now() > deadline)
          throw new Error(
            `not settled: ${what}: ${JSON.stringify(current.slice(0, 3).map((o) => o.metadata?.labels))} ${JSON.stringify([...sharder.shards()])} ${String(sharder.isSharder)}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await settled(ring2, 'two members');
    // The sharder caches metadata only (labels, owner references, resourceVersions are all it reads).
    const sharderCache = (
      sharder as unknown as { objectInformer?: { store: { list(): KubernetesObject[] } } }
    ).objectInformer;
    const cached = sharderCache?.store.list() ?? [];
    expect(cached).toHaveLength(N);
    expect(cached.every((o) => (o as { data?: unknown }).data === undefined && shardOf(o) !== '')).toBe(true);
    const perShard = (list: KubernetesObject[]) => {
      const m = new Map<string, number>();
      for (const o of list) m.set(shardOf(o), (m.get(shardOf(o)) ?? 0) + 1);
      return m;
    };
    expect([...perShard(current).keys()].sort()).toEqual([a.shard(), b.shard()].sort());
    const before = new Map(current.map((o) => [o.metadata?.name ?? '', shardOf(o)]));
    expect(drained.size).toBe(0);

    // A third member joins: only objects the ring gives to it move, each drained by its live owner first.
    const c = startMember(client, 'c', drained);
    cleanups.push(() => c.stop());
    await eventually(() => c.shard() !== undefined, 5000, 'third member joined');
    const ring3 = ringOf({ a: a.shard, b: b.shard, c: c.shard });
    await settled(ring3, 'three members');
    const moved = current.filter((o) => before.get(o.metadata?.name ?? '') !== shardOf(o));
    expect(moved.length).toBeGreaterThan(0);
    expect(moved.length).toBeLessThan(N * 0.6);
    for (const o of moved) {
      expect(shardOf(o)).toBe(c.shard());
      expect(drained.has(o.metadata?.name ?? '')).toBe(true);
    }
    expect(drained.size).toBe(moved.length);

    // b stops gracefully (Lease released): its objects move at once, without a drain.
    const bShard = b.shard() as string;
    const bOwned = current.filter((o) => shardOf(o) === bShard).length;
    const stoppedAt = Date.now();
    await b.stop();
    const ring2b = ringOf({ a: a.shard, c: c.shard });
    await settled(ring2b, 'after b left');
    expect(Date.now() - stoppedAt).toBeLessThan(2_000);
    expect(drained.size).toBe(moved.length);
    expect(bOwned).toBeGreaterThan(0);

    // A user labels an object with a shard that does not exist: it goes back to its owner.
    await client.patch(
      { ...cmRef, name: 'site-3' },
      { metadata: { labels: { [labels.shard]: 'nobody-12345678' } } },
      'merge',
    );
    await settled(ring2b, 'after a bad label');
    const metrics = await registry.getMetricsAsJSON();
    const handovers = metrics.find((m) => m.name === 'reconcilekit_shard_handovers_total');
    const by = (how: string) =>
      handovers?.values.filter((v) => v.labels.how === how).reduce((s, v) => s + v.value, 0) ?? 0;
    expect(by('assign')).toBe(N + moved.length);
    expect(by('drain')).toBe(moved.length);
    expect(by('move')).toBe(bOwned + 1);

    // A replica killed (no release): its Lease expires. The sharder empties the Lease, marking the shard
    // id spent, before it moves the shard's objects.
    const leaseRef = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      plural: 'leases',
      namespace: 'default',
    };
    await client.create({
      ...leaseRef,
      metadata: {
        name: 'sites-shard-d-0000beef',
        namespace: 'default',
        labels: {
          [SHARD_RING_LABEL]: 'sites',
          [SHARD_ID_LABEL]: 'd-0000beef',
          [SHARD_IDENTITY_LABEL]: 'd',
        },
      },
      spec: { holderIdentity: 'd-0000beef', leaseDurationSeconds: 1, renewTime: new Date().toISOString() },
    } as KubernetesObject);
    await client.patch(
      { ...cmRef, name: 'site-5' },
      { metadata: { labels: { [labels.shard]: 'd-0000beef' } } },
      'merge',
    );
    await settled(ring2b, 'after d expired');
    const dLease = await client.get<KubernetesObject & { spec?: { holderIdentity?: string } }>({
      ...leaseRef,
      name: 'sites-shard-d-0000beef',
    });
    expect(dLease.spec?.holderIdentity).toBe('');
    expect(dLease.metadata?.annotations?.[SHARD_REAPED_ANNOTATION]).toBe('sharder-1');
  });
});
