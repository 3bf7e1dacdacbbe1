import type { KubernetesObject } from '@kubernetes/client-node';
import { HashRing } from './hash-ring.js';
import { SHARD_HANDED_TO_ANNOTATION } from './shard-labels.js';
import type { ShardLease } from './shard-leases.js';

/**
 * How a {@link RecordedRing} places keys: the ring's key function (see `shardKeyOf`) and virtual nodes,
 * as the ring's members are configured.
 * @category Sharding
 */
export interface RecordedRingOptions {
  keyOf: (obj: KubernetesObject) => string;
  virtualNodes?: number;
}

/** Most members a recorded ring may name (the ring's own limit). */
const MAX_RECORDED_MEMBERS = 4_096;
/** Longest {@link SHARD_HANDED_TO_ANNOTATION} read (hostile input bounded; 4,096 members fit). */
const MAX_RECORD_CHARS = 512 * 1024;
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * The ring a released shard handed its keys to ({@link SHARD_HANDED_TO_ANNOTATION}): the owner of each
 * key among the recorded members, the same for the sharder and for every member that adopts.
 * @category Sharding
 */
export class RecordedRing {
  private readonly ring: HashRing;
  private readonly keyOf: (obj: KubernetesObject) => string;

  constructor(
    /** identity → shard id. */
    readonly members: ReadonlyMap<string, string>,
    options: RecordedRingOptions,
  ) {
    this.ring = new HashRing(
      [...members.keys()].sort(),
      options.virtualNodes === undefined ? {} : { virtualNodes: options.virtualNodes },
    );
    this.keyOf = options.keyOf;
  }

  /** Whether `shard` is one of the recorded members. */
  names(shard: string): boolean {
    for (const s of this.members.values()) if (s === shard) return true;
    return false;
  }

  /** The recorded owner (shard id) of `obj`. */
  ownerOf(obj: KubernetesObject): string | undefined {
    const identity = this.ring.owner(this.keyOf(obj));
    return identity === undefined ? undefined : this.members.get(identity);
  }

  /**
   * The recorded ring of a shard Lease: present only once the Lease is released (holder empty; unless
   * `released` is false, as for the sharder, which moves a stopped shard's objects by its record whenever
   * it has one) and its
   * {@link SHARD_HANDED_TO_ANNOTATION} is well formed (JSON of at most 4,096 identity → shard id pairs,
   * each a label value); undefined otherwise.
   */
  static of(
    lease: ShardLease | undefined,
    options: RecordedRingOptions,
    released = true,
  ): RecordedRing | undefined {
    if (lease === undefined || (released && (lease.spec?.holderIdentity ?? '') !== '')) return undefined;
    const text = lease.metadata?.annotations?.[SHARD_HANDED_TO_ANNOTATION];
    if (text === undefined || text.length > MAX_RECORD_CHARS) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const entries = Object.entries(parsed as Record<string, unknown>);
    if (entries.length === 0 || entries.length > MAX_RECORDED_MEMBERS) return undefined;
    const members = new Map<string, string>();
    for (const [identity, shard] of entries) {
      if (!LABEL_VALUE.test(identity) || typeof shard !== 'string' || !LABEL_VALUE.test(shard))
        return undefined;
      members.set(identity, shard);
    }
    return new RecordedRing(members, options);
  }
}
