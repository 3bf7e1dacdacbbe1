/**
 * Sharding: controllers scaled out across replicas — a consistent-hash ring over the live members (one
 * Lease per replica), objects labelled with their shard, each replica watching only its own.
 *
 * @module reconcilekit/sharding
 */
export { HashRing, ringHash, DEFAULT_VIRTUAL_NODES, type HashRingOptions } from './hash-ring.js';
export {
  SHARD_LABEL_PREFIX,
  DRAIN_LABEL_PREFIX,
  SHARD_RING_LABEL,
  SHARD_ID_LABEL,
  SHARD_IDENTITY_LABEL,
  SHARD_REAPED_ANNOTATION,
  SHARD_LEAVING_ANNOTATION,
  SHARD_HANDED_TO_ANNOTATION,
  ringIdentity,
  ringNameProblem,
  shardLabels,
  newShardId,
  shardLeaseName,
  sharderLeaseName,
  type ShardLabels,
} from './shard-labels.js';
export { ShardLeases, type ShardLease, type ShardState } from './shard-leases.js';
export {
  ShardMember,
  type ShardMemberOptions,
  type ShardTerm,
  type ShardMemberCallbacks,
} from './shard-member.js';
export {
  Sharder,
  shardKeyOf,
  DEFAULT_SHARDER_CONCURRENCY,
  type SharderOptions,
  type ShardKey,
} from './sharder.js';
export { RecordedRing, type RecordedRingOptions } from './recorded-ring.js';
export {
  handOffOwnObjects,
  recordHandOff,
  type RecordHandOffOptions,
  DEFAULT_HAND_OFF_CONCURRENCY,
  type HandOffOptions,
  type HandOffResult,
} from './hand-off.js';
export { ShardingMetrics } from './metrics.js';
export { resolveSharding, type ShardingOptions, type ResolvedShardingOptions } from './sharding-options.js';
