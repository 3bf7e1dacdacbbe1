import type { KubernetesObject } from '@kubernetes/client-node';
import { SHARD_ID_LABEL, SHARD_IDENTITY_LABEL, SHARD_LEAVING_ANNOTATION } from './shard-labels.js';

/** The fields of a coordination.k8s.io/v1 Lease the ring reads. */
export type ShardLease = KubernetesObject & {
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string };
};

/**
 * A shard as the sharder sees it:
 * - `ready`: its Lease is held by the shard and was renewed within the lease duration (timed from when
 *   this observer saw the record change: no trust in other machines' clocks);
 * - `dead`: released (holder emptied by a graceful stop, or by the sharder declaring it dead) or not renewed
 *   for a lease duration — the shard's own fence closed before that, so it writes nothing more. An expired
 *   shard whose Lease still names it may renew and be ready again; once its Lease was emptied it never
 *   comes back under this id.
 * @category Sharding
 */
export type ShardState = 'ready' | 'dead';

interface Observed {
  record: string;
  seenAt: number;
  lease: ShardLease;
}

/**
 * The members of one ring, from its shard Leases: fed the Leases of the ring's set (a watch with a label
 * selector), it answers which shards are ready, which are dead, and when the next ready one would expire.
 * Pure bookkeeping; the clock is injected.
 * @category Sharding
 */
export class ShardLeases {
  private readonly byName = new Map<string, Observed>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A Lease was added or changed. */
  observe(lease: ShardLease): void {
    const name = lease.metadata?.name;
    if (name === undefined) return;
    const record = JSON.stringify(lease.spec ?? {});
    const prior = this.byName.get(name);
    if (prior !== undefined && prior.record === record) {
      prior.lease = lease;
      return;
    }
    this.byName.set(name, { record, seenAt: this.now(), lease });
  }

  /** A Lease was deleted. */
  forget(lease: ShardLease): void {
    const name = lease.metadata?.name;
    if (name !== undefined) this.byName.delete(name);
  }

  /** Every shard with a Lease, and its state. */
  shards(): Map<string, ShardState> {
    const out = new Map<string, ShardState>();
    for (const o of this.byName.values()) {
      const shard = o.lease.metadata?.labels?.[SHARD_ID_LABEL];
      if (shard === undefined || shard === '') continue;
      out.set(shard, this.stateOf(o, shard));
    }
    return out;
  }

  /** The ready shards. */
  ready(): string[] {
    return [...this.shards()].filter(([, s]) => s === 'ready').map(([shard]) => shard);
  }

  /**
   * The ring's members: for each identity with a ready shard, that shard. When one identity has several
   * ready shards (a restarted replica whose old Lease has not expired yet, or two replicas configured
   * with the same identity), the one whose Lease is oldest keeps the identity's place; the others get no
   * objects until it is gone. A Lease without the identity label is placed by its shard id. A shard that
   * is leaving ({@link ShardLeases.leaving}) is no member.
   */
  members(): Map<string, string> {
    const best = new Map<string, { shard: string; since: string }>();
    for (const o of this.byName.values()) {
      const shard = o.lease.metadata?.labels?.[SHARD_ID_LABEL];
      if (shard === undefined || shard === '' || this.stateOf(o, shard) !== 'ready') continue;
      if (o.lease.metadata?.annotations?.[SHARD_LEAVING_ANNOTATION] !== undefined) continue;
      const identity = o.lease.metadata?.labels?.[SHARD_IDENTITY_LABEL] || shard;
      const created = o.lease.metadata?.creationTimestamp as Date | string | undefined;
      const since = created instanceof Date ? created.toISOString() : (created ?? '');
      const prior = best.get(identity);
      if (prior === undefined || since < prior.since || (since === prior.since && shard < prior.shard)) {
        best.set(identity, { shard, since });
      }
    }
    return new Map([...best].map(([identity, b]) => [identity, b.shard]));
  }

  /**
   * Ready shards whose replica is stopping gracefully ({@link SHARD_LEAVING_ANNOTATION} on the Lease):
   * not members of the ring, handing their objects over themselves.
   */
  leaving(): Set<string> {
    const out = new Set<string>();
    for (const o of this.byName.values()) {
      const shard = o.lease.metadata?.labels?.[SHARD_ID_LABEL];
      if (shard === undefined || shard === '' || this.stateOf(o, shard) !== 'ready') continue;
      if (o.lease.metadata?.annotations?.[SHARD_LEAVING_ANNOTATION] !== undefined) out.add(shard);
    }
    return out;
  }

  /** The Lease of `shard`, as last seen (undefined when it has none). */
  leaseOf(shard: string): ShardLease | undefined {
    for (const o of this.byName.values()) {
      if (o.lease.metadata?.labels?.[SHARD_ID_LABEL] === shard) return o.lease;
    }
    return undefined;
  }

  /** State of one shard: undefined when it has no Lease (never joined, or its Lease was deleted). */
  state(shard: string): ShardState | undefined {
    return this.shards().get(shard);
  }

  /** Names of Leases dead for at least `ms` (to delete: their shards are gone for good). */
  deadSince(ms: number): ShardLease[] {
    const out: ShardLease[] = [];
    const now = this.now();
    for (const o of this.byName.values()) {
      const shard = o.lease.metadata?.labels?.[SHARD_ID_LABEL] ?? '';
      if (this.stateOf(o, shard) === 'dead' && now - this.expiresAt(o) >= ms) out.push(o.lease);
    }
    return out;
  }

  /** Milliseconds until the next ready shard expires unless renewed (undefined: none ready). */
  nextExpiryIn(): number | undefined {
    let next: number | undefined;
    for (const o of this.byName.values()) {
      const shard = o.lease.metadata?.labels?.[SHARD_ID_LABEL] ?? '';
      if (this.stateOf(o, shard) !== 'ready') continue;
      const left = this.expiresAt(o) - this.now();
      next = next === undefined ? left : Math.min(next, left);
    }
    return next;
  }

  private expiresAt(o: Observed): number {
    const holder = o.lease.spec?.holderIdentity ?? '';
    if (holder === '') return o.seenAt;
    return o.seenAt + (o.lease.spec?.leaseDurationSeconds ?? 0) * 1000;
  }

  private stateOf(o: Observed, shard: string): ShardState {
    const holder = o.lease.spec?.holderIdentity ?? '';
    if (holder === '' || holder !== shard) return 'dead';
    return this.expiresAt(o) > this.now() ? 'ready' : 'dead';
  }
}
