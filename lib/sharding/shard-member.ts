import type { Registry } from 'prom-client';
import type { ObjectClient, WriteFence } from '../kube/object-client.js';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  LeaderElector,
} from '../leader/leader-elector.js';
import type { Logger } from '../observability/logger.js';
import {
  newShardId,
  ringIdentity,
  SHARD_ID_LABEL,
  SHARD_IDENTITY_LABEL,
  SHARD_RING_LABEL,
  shardLeaseName,
} from './shard-labels.js';

/**
 * Options of a {@link ShardMember}.
 * @category Sharding
 */
export interface ShardMemberOptions {
  /** Client for the Leases (unfenced: the Lease's own writes are not gated by it). */
  client: ObjectClient;
  /** The sharded controller (the ring). */
  controller: string;
  /** Namespace of the shard Leases. */
  namespace: string;
  /**
   * This replica's stable identity: the ring places it by this (and it is the base of its shard ids).
   * Unique per replica. Default: the hostname (a pod's name).
   */
  identity?: string;
  /** Lease validity: a replica that stops renewing leaves the ring this long after its last renewal. */
  leaseDurationMs?: number;
  /** A member that could not renew for this long stops work (its fence closes). */
  renewDeadlineMs?: number;
  /** Pause between renewals. */
  retryPeriodMs?: number;
  logger: Logger;
  registry?: Registry;
}

/**
 * One term of membership: the shard this replica is while it holds the shard's Lease.
 * @category Sharding
 */
export interface ShardTerm {
  /** The shard id (the value of the shard label on the objects it owns). */
  shard: string;
  /** Aborts when the term ends: the Lease was lost, not renewed in time, or released. */
  signal: AbortSignal;
  /** The write fence of the term: closed once the renew deadline passed since the last renewal. */
  fence: WriteFence;
}

/**
 * What {@link ShardMember.run} calls.
 * @category Sharding
 */
export interface ShardMemberCallbacks {
  /** A term began: the replica is shard `term.shard` until `term.signal` aborts. */
  joined(term: ShardTerm): void;
  /** The term ended (called once per term, after `term.signal` aborted). */
  left(shard: string): void;
}

/**
 * A replica's membership of a controller's shard ring: it holds a Lease of its own in the ring's Lease
 * set (labelled {@link SHARD_RING_LABEL} = controller, {@link SHARD_ID_LABEL} = shard,
 * {@link SHARD_IDENTITY_LABEL} = the replica's stable identity, by which the ring places it), renewed and
 * fenced as the leader Lease is ({@link LeaderElector}). A term ends when the Lease is lost or was not
 * renewed within the renew deadline. The next term keeps the shard id while the Lease still names it
 * (no one declared the shard dead, so its objects are still its own and nothing moves); once the Lease
 * names no one (the sharder emptied it before moving the shard's objects) or is gone, the id is spent and
 * the replica joins under a new one — at the same places on the ring, since those follow the identity.
 * Stopping (the `run` signal) releases the Lease at once: the sharder then moves the shard's objects
 * without waiting.
 * @category Sharding
 */
export class ShardMember {
  private readonly o: ShardMemberOptions;
  private current: ShardTerm | undefined;

  constructor(options: ShardMemberOptions) {
    const lease = options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    const renew = options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    const retry = options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    if (!(lease > renew && renew > retry && retry > 0)) {
      throw new RangeError('sharding needs leaseDurationMs > renewDeadlineMs > retryPeriodMs > 0');
    }
    this.o = options;
  }

  /** The current term, or undefined between terms. */
  get term(): ShardTerm | undefined {
    return this.current;
  }

  /** Joins, and joins again after each term ends, until `signal` aborts; then releases the Lease. */
  async run(signal: AbortSignal, callbacks: ShardMemberCallbacks): Promise<void> {
    const o = this.o;
    const identity = ringIdentity(o.identity);
    while (!signal.aborted) {
      const shard = newShardId(o.identity);
      // Set once this shard id may not be held again: its Lease was emptied by someone else or deleted.
      const spent = new AbortController();
      let held = false;
      const elector = new LeaderElector({
        client: o.client,
        leaseName: shardLeaseName(o.controller, shard),
        namespace: o.namespace,
        identity: shard,
        labels: {
          [SHARD_RING_LABEL]: o.controller,
          [SHARD_ID_LABEL]: shard,
          [SHARD_IDENTITY_LABEL]: identity,
        },
        logger: o.logger.child({ shard }),
        mayHold: (lease) => {
          const holder = lease?.spec?.holderIdentity;
          // A new id creates its Lease; afterwards only a Lease still naming this shard may be renewed.
          const ok = lease === undefined ? !held : holder === shard;
          if (!ok) spent.abort();
          return ok;
        },
        ...(o.leaseDurationMs === undefined ? {} : { leaseDurationMs: o.leaseDurationMs }),
        ...(o.renewDeadlineMs === undefined ? {} : { renewDeadlineMs: o.renewDeadlineMs }),
        ...(o.retryPeriodMs === undefined ? {} : { retryPeriodMs: o.retryPeriodMs }),
      });
      // One elector per shard id, through all its terms; when the id is spent its run ends and the loop
      // joins again under a new id.
      await elector.run(AbortSignal.any([signal, spent.signal]), {
        onStartedLeading: (leaderSignal) => {
          held = true;
          this.current = { shard, signal: leaderSignal, fence: elector.fence };
          o.logger.info('joined the shard ring', { controller: o.controller, shard });
          callbacks.joined(this.current);
        },
        onStoppedLeading: () => {
          this.current = undefined;
          o.logger.info('left the shard ring', { controller: o.controller, shard });
          callbacks.left(shard);
        },
      });
      if (isAborted(spent.signal) && !isAborted(signal)) {
        o.logger.warn('shard id spent (its Lease no longer names it); joining under a new one', {
          controller: o.controller,
          shard,
        });
      }
    }
  }
}

/** Reads `signal.aborted` afresh (it changes across awaits). */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}
