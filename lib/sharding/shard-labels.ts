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
 * A fresh shard id: `<base>-<8 hex>` (base: `identity`, default the hostname — a pod's name), a valid label
 * value. A replica takes a new one for each term of membership, so a shard that was declared dead never
 * comes back under the same name.
 * @category Sharding
 */
export function newShardId(identity: string = hostname()): string {
  return `${dnsPart(identity, 40)}-${randomBytes(4).toString('hex')}`;
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
