// Shard membership on the embedded API server: each replica holds a Lease of its own in the ring's Lease
// set; a graceful stop releases it at once; a member frozen past its renew deadline is fenced (writes
// refused), its term ends and it joins again under the same shard id (its Lease still names it), or under a
// new one once its Lease was emptied (the sharder declared it dead); the ring's view (ShardLeases) sees a
// member that stopped renewing as dead one lease duration after its last renewal, and places members by
// their stable identity.
import { afterEach, describe, expect, it } from 'vitest';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { isLeaseExpired } from '../../lib/leader/leader-elector.js';
import { silentLogger } from '../../lib/observability/logger-silent.js';
import { SHARD_ID_LABEL, SHARD_IDENTITY_LABEL, SHARD_RING_LABEL } from '../../lib/sharding/shard-labels.js';
import { ShardLeases, type ShardLease } from '../../lib/sharding/shard-leases.js';
import { ShardMember, type ShardTerm } from '../../lib/sharding/shard-member.js';
import { eventually, startEmbeddedCluster, type EmbeddedCluster } from '../kube/embedded-server.js';

const leaseRef = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  plural: 'leases',
  namespace: 'default',
};

/** Blocks the event loop, as a SIGSTOP would freeze the process. */
function freeze(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

async function ringLeases(client: ObjectClient): Promise<ShardLease[]> {
  const list = await client.list<ShardLease>(leaseRef, { labelSelector: `${SHARD_RING_LABEL}=websites` });
  return list.items;
}

describe('shard membership', () => {
  let cluster: EmbeddedCluster | undefined;
  afterEach(async () => {
    await cluster?.close();
  });

  it('holds a labelled Lease per replica; a graceful stop releases it at once', async () => {
    cluster = await startEmbeddedCluster();
    const client = cluster.client;
    const stops = [new AbortController(), new AbortController()];
    const terms: ShardTerm[] = [];
    const runs = stops.map((stop, i) =>
      new ShardMember({
        client,
        controller: 'websites',
        namespace: 'default',
        identity: `Replica_${i}`,
        leaseDurationMs: 1500,
        renewDeadlineMs: 1000,
        retryPeriodMs: 200,
        logger: silentLogger(),
      }).run(stop.signal, { joined: (t) => terms.push(t), left: () => undefined }),
    );
    await eventually(() => terms.length === 2, 5000, 'both members joined');
    const [a, b] = terms as [ShardTerm, ShardTerm];
    expect(a.shard).toMatch(/^replica-[01]-[0-9a-f]{8}$/);
    expect(a.shard).not.toBe(b.shard);
    const leases = await ringLeases(client);
    expect(leases.map((l) => l.metadata?.labels?.[SHARD_ID_LABEL]).sort()).toEqual([a.shard, b.shard].sort());
    const view = new ShardLeases();
    for (const l of leases) view.observe(l);
    expect(view.ready().sort()).toEqual([a.shard, b.shard].sort());

    (stops[0] as AbortController).abort();
    await runs[0];
    const after = await ringLeases(client);
    const released = after.find((l) => l.metadata?.labels?.[SHARD_ID_LABEL] === terms[0]?.shard);
    expect(released?.spec?.holderIdentity ?? '').toBe('');
    for (const l of after) view.observe(l);
    expect(view.state(terms[0]?.shard ?? '')).toBe('dead');
    expect(view.ready()).toEqual([terms[1]?.shard]);
    (stops[1] as AbortController).abort();
    await runs[1];
  });

  it('a member frozen past its renew deadline writes nothing more and joins again under the same shard id; a spent id is replaced', async () => {
    cluster = await startEmbeddedCluster();
    const client = new ObjectClient({ kubeConfig: cluster.client.kubeConfig });
    const stop = new AbortController();
    const terms: ShardTerm[] = [];
    const left: string[] = [];
    const run = new ShardMember({
      client: client.unfenced(),
      controller: 'websites',
      namespace: 'default',
      identity: 'pod-7',
      leaseDurationMs: 1500,
      renewDeadlineMs: 600,
      retryPeriodMs: 100,
      logger: silentLogger(),
    }).run(stop.signal, {
      joined: (t) => {
        terms.push(t);
        client.fence = t.fence;
      },
      left: (s) => left.push(s),
    });
    await eventually(() => terms.length === 1, 5000, 'joined');
    const first = terms[0] as ShardTerm;
    const cm = (name: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default' },
    });
    await client.create(cm('before'));
    freeze(700);
    let refused: unknown;
    try {
      await client.create(cm('after-freeze'));
    } catch (err) {
      refused = err;
    }
    expect(isLeaseExpired(refused)).toBe(true);
    expect(first.signal.aborted).toBe(true);
    await eventually(() => terms.length === 2, 5000, 'joined again');
    expect(left).toEqual([first.shard]);
    // Nobody declared the shard dead: it keeps its id (and so its objects).
    expect((terms[1] as ShardTerm).shard).toBe(first.shard);
    expect((terms[1] as ShardTerm).signal.aborted).toBe(false);

    // The sharder declares it dead (empties its Lease): the id is spent; it joins under a new one, with
    // the same ring identity.
    for (let attempt = 0; ; attempt++) {
      const [lease] = await ringLeases(cluster.client);
      try {
        await cluster.client.replace({
          ...lease,
          spec: { ...lease?.spec, holderIdentity: '' },
        });
        break;
      } catch (err) {
        if (attempt > 20) throw err; // renewed meanwhile: read it again
      }
    }
    await eventually(() => terms.length === 3, 5000, 'joined under a new id');
    const third = terms[2] as ShardTerm;
    expect(third.shard).not.toBe(first.shard);
    expect(third.shard).toMatch(/^pod-7-[0-9a-f]{8}$/);
    const mine = (await ringLeases(cluster.client)).find(
      (l) => l.metadata?.labels?.[SHARD_ID_LABEL] === third.shard,
    );
    expect(mine?.metadata?.labels?.[SHARD_IDENTITY_LABEL]).toBe('pod-7');
    expect(mine?.spec?.holderIdentity).toBe(third.shard);
    const names = (
      await cluster.client.list({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        plural: 'configmaps',
        namespace: 'default',
      })
    ).items.map((i) => i.metadata?.name);
    expect(names).toContain('before');
    expect(names).not.toContain('after-freeze');
    stop.abort();
    await run;
  });

  it('the ring view judges expiry by its own clock from the last change it saw', () => {
    let now = 1_000;
    const view = new ShardLeases(() => now);
    const lease = (holder: string, renew: string): ShardLease => ({
      metadata: { name: 'w-shard-a', labels: { [SHARD_ID_LABEL]: 'a' } },
      spec: { holderIdentity: holder, leaseDurationSeconds: 2, renewTime: renew },
    });
    view.observe(lease('a', 't1'));
    expect(view.ready()).toEqual(['a']);
    expect(view.nextExpiryIn()).toBe(2000);
    now += 1500;
    view.observe(lease('a', 't1')); // the same record again: no renewal
    now += 600;
    expect(view.state('a')).toBe('dead');
    view.observe(lease('a', 't2')); // renewed
    expect(view.state('a')).toBe('ready');
    view.observe(lease('sharder', 't3')); // held by someone else: not the shard
    expect(view.state('a')).toBe('dead');
    expect(view.state('unknown')).toBeUndefined();
    now += 62_000;
    expect(view.deadSince(60_000).map((l) => l.metadata?.name)).toEqual(['w-shard-a']);
  });

  it('the ring view places members by identity; the oldest Lease of an identity keeps its place', () => {
    const view = new ShardLeases(() => 1_000);
    const lease = (shard: string, identity: string | undefined, created: string): ShardLease => ({
      metadata: {
        name: `w-shard-${shard}`,
        creationTimestamp: created as never,
        labels: {
          [SHARD_ID_LABEL]: shard,
          ...(identity === undefined ? {} : { [SHARD_IDENTITY_LABEL]: identity }),
        },
      },
      spec: { holderIdentity: shard, leaseDurationSeconds: 10, renewTime: 't' },
    });
    view.observe(lease('a-2', 'a', '2026-01-01T00:00:05Z'));
    view.observe(lease('a-1', 'a', '2026-01-01T00:00:01Z'));
    view.observe(lease('b-1', 'b', '2026-01-01T00:00:03Z'));
    view.observe(lease('old', undefined, '2026-01-01T00:00:00Z'));
    expect([...view.members()].sort()).toEqual([
      ['a', 'a-1'],
      ['b', 'b-1'],
      ['old', 'old'],
    ]);
    // a-1 released: a-2 takes the identity's place.
    view.observe({ ...lease('a-1', 'a', '2026-01-01T00:00:01Z'), spec: { holderIdentity: '' } });
    expect(view.members().get('a')).toBe('a-2');
  });
});
