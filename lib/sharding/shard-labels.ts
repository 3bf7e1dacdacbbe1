import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Prefix of the label that names an object's shard: `shard.reconcilekit.io/<controller>` = the shard.
 * @category Sharding
 */
export const SHARD_LABEL_PREFIX = 'shard.reconcilekit.io/';
/**
 * Prefix of the drain label: `drain.shard.reconcilekit.io/<controller>` set by the sharder asks the
 * object's shard to let it go (it acknowledges by removing both labels).
 * @category Sharding
 */
export const DRAIN_LABEL_PREFIX = 'drain.shard.reconcilekit.io/';
/**
 * Label of every shard Lease: the controller (ring) it is a member of.
 * @category Sharding
 */
export const SHARD_RING_LABEL = 'ring.shard.reconcilekit.io/controller';
/**
 * Label of every shard Lease: the shard it stands for (also its holder while alive).
 * @category Sharding
 */
export const SHARD_ID_LABEL = 'ring.shard.reconcilekit.io/shard';

/**
 * Label of every shard Lease: the stable identity of the replica holding it (its pod's name, or the
 * configured identity). The ring places a member by this identity, not by its shard id, so a replica that
 * comes back under a new shard id takes the same share of the keys.
 * @category Sharding
 */
export const SHARD_IDENTITY_LABEL = 'ring.shard.reconcilekit.io/identity';
/**
 * Annotation the sharder sets on a shard Lease it declared dead (holder emptied) before it moves the
 * shard's objects: the shard id is spent, and its replica joins again under a new one.
 * @category Sharding
 */
export const SHARD_REAPED_ANNOTATION = 'ring.shard.reconcilekit.io/reaped-by';
/**
 * Annotation a replica stopping gracefully sets on its shard Lease before it hands its objects to their
 * ring owners itself: the sharder leaves it out of the ring and does not touch its objects while its Lease
 * is live (once released or expired, whatever it still labels moves as from any dead shard).
 * @category Sharding
 */
export const SHARD_LEAVING_ANNOTATION = 'ring.shard.reconcilekit.io/leaving';
/**
 * Annotation a replica stopping gracefully writes on its shard Lease (while it still holds it, after its
 * passes all returned) before releasing it: the ring it hands its keys to, as JSON `{ identity: shard }`
 * of the live members it saw. Once the Lease is released, each member named there adopts the released
 * shard's objects that this recorded ring gives it (before any label moves), and the sharder relabels
 * them to the same owners.
 * @category Sharding
 */
export const SHARD_HANDED_TO_ANNOTATION = 'ring.shard.reconcilekit.io/handed-to';

/** A label key's name part, a label value (both at most 63 characters). */
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * Why `controller` cannot name a ring (it becomes a label key's name part), or undefined when it can.
 * @category Sharding
 */
export function ringNameProblem(controller: string): string | undefined {
  if (LABEL_NAME.test(controller)) return undefined;
  return `"${controller}" cannot be a sharded controller's name: it becomes the label key shard.reconcilekit.io/<name>, so it needs 1–63 characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
}

/**
 * The labels of one sharded controller.
 * @category Sharding
 */
export interface ShardLabels {
  /** `shard.reconcilekit.io/<controller>`: the object's shard. */
  shard: string;
  /** `drain.shard.reconcilekit.io/<controller>`: the sharder asks the shard to let the object go. */
  drain: string;
}

/**
 * The label keys of `controller`'s ring.
 * @category Sharding
 */
export function shardLabels(controller: string): ShardLabels {
  return { shard: `${SHARD_LABEL_PREFIX}${controller}`, drain: `${DRAIN_LABEL_PREFIX}${controller}` };
}

/** Lowercase letters, digits and '-' only, at most `max` characters, no '-' at either end. */
function dnsPart(s: string, max: number): string {
  const cleaned = s
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, max)
    .replace(/^-+|-+$/g, '');
  return cleaned === '' ? 'replica' : cleaned;
}

/**
 * The ring identity of a replica: `identity` (default the hostname — a pod's name) in the form of a
 * label value (lowercase letters, digits and '-', at most 40 characters).
 * @category Sharding
 */
export function ringIdentity(identity: string = hostname()): string {
  return dnsPart(identity, 40);
}

/**
 * A fresh shard id: `<ring identity>-<8 hex>` (see {@link ringIdentity}), a valid label value. A replica
 * keeps its shard id across terms of membership while its Lease still names it; it takes a new one only
 * when the sharder declared the old one dead (or on a restart), so a shard whose objects were moved
 * without asking it never comes back under the same name.
 * @category Sharding
 */
export function newShardId(identity: string = hostname()): string {
  return `${ringIdentity(identity)}-${randomBytes(4).toString('hex')}`;
}

/**
 * The name of a shard's Lease: `<controller>-shard-<shard>` in DNS form.
 * @category Sharding
 */
export function shardLeaseName(controller: string, shard: string): string {
  return `${dnsPart(controller, 63)}-shard-${shard}`;
}

/**
 * The name of the Lease the sharder of `controller` is elected with.
 * @category Sharding
 */
export function sharderLeaseName(controller: string): string {
  return `${dnsPart(controller, 63)}-sharder`;
}
