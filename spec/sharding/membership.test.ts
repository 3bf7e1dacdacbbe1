// Shard membership on the embedded API server: each replica holds a Lease of its own in the ring's Lease
// set; a graceful stop releases it at once; a member frozen past its renew deadline is fenced (writes
// refused), its term ends and it joins again under a new shard id; the ring's view (ShardLeases) sees a
// member that stopped renewing as dead one lease duration after its last renewal.
import { afterEach, describe, expect, it } from 'vitest';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { isLeaseExpired } from '../../lib/leader/leader-elector.js';
import { silentLogger } from '../../lib/observability/logger-silent.js';
import { SHARD_ID_LABEL, SHARD_RING_LABEL } from '../../lib/sharding/shard-labels.js';
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

  it('a member frozen past its renew deadline writes nothing more and joins again under a new shard id', async () => {
    cluster = await startEmbeddedCluster();
    const client = new ObjectClient({ kubeConfig: cluster.client.kubeConfig });
    const stop = new AbortController();
    const terms: ShardTerm[] = [];
    const left: string[] = [];
    const run = new ShardMember({
      client: client.unfenced(),
      controller: 'websites',
      namespace: 'default',
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
    expect((terms[1] as ShardTerm).shard).not.toBe(first.shard);
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
});
