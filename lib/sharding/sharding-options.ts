import { InvalidConfigError } from '../errors/invalid-config-error.js';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
} from '../leader/leader-elector.js';
import { ringNameProblem } from './shard-labels.js';
import type { ShardKey } from './sharder.js';

/**
 * The engine's `sharding` option: the controller runs on every replica, each reconciling only the objects
 * labelled with its shard (docs/sharding.md).
 * @category Sharding
 */
export interface ShardingOptions {
  /** Namespace of the shard Leases and the sharder Lease. */
  leaseNamespace: string;
  /** Base of this replica's shard ids. Default: the hostname (a pod's name). */
  identity?: string;
  /** What the ring places: `name` (namespace/name, default), `namespace`, or a function of the object. */
  shardKey?: ShardKey;
  /**
   * Owned children (`owns`): `'follow'` (default) — the sharder labels each child with its owner's shard
   * and every replica watches only its own children (the children's cache shrinks with the shard; the
   * sharder needs `patch` on the owned kinds); `'all'` — children are not labelled and every replica
   * watches all of them.
   */
  children?: 'follow' | 'all';
  /** Whether this replica campaigns to be the sharder. Default true. */
  sharder?: boolean;
  /** Virtual nodes per member of the ring. Default 2,000. */
  virtualNodes?: number;
  /** Shard Lease validity. Default 15 s: a replica that stops renewing loses its objects after this long. */
  leaseDurationMs?: number;
  /** A shard that could not renew for this long stops writing. Default 10 s. */
  renewDeadlineMs?: number;
  /** Pause between renewals. Default 2 s. */
  retryPeriodMs?: number;
}

/**
 * {@link ShardingOptions} with defaults filled in.
 * @category Sharding
 */
export type ResolvedShardingOptions = Required<
  Omit<ShardingOptions, 'identity' | 'shardKey' | 'virtualNodes'>
> &
  Pick<ShardingOptions, 'identity' | 'shardKey' | 'virtualNodes'>;

function ms(value: unknown, what: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidConfigError(
      `${what} must be a positive number of milliseconds, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * Checks the `sharding` option of controller `name`; undefined when sharding is off.
 * @category Sharding
 */
export function resolveSharding(value: unknown, name: string): ResolvedShardingOptions | undefined {
  if (value === undefined || value === false) return undefined;
  if (typeof value !== 'object' || value === null) {
    throw new InvalidConfigError('config.sharding must be { leaseNamespace, ... } or false');
  }
  const o = value as Record<string, unknown>;
  const problem = ringNameProblem(name);
  if (problem !== undefined) throw new InvalidConfigError(`config.sharding: ${problem}`);
  if (typeof o.leaseNamespace !== 'string' || o.leaseNamespace === '') {
    throw new InvalidConfigError(
      "config.sharding.leaseNamespace must name the namespace of the shard Leases (e.g. the operator's own)",
    );
  }
  const shardKey = o.shardKey;
  if (
    shardKey !== undefined &&
    shardKey !== 'name' &&
    shardKey !== 'namespace' &&
    typeof shardKey !== 'function'
  ) {
    throw new InvalidConfigError(
      "config.sharding.shardKey must be 'name', 'namespace' or a function of the object",
    );
  }
  if (o.identity !== undefined && (typeof o.identity !== 'string' || o.identity === '')) {
    throw new InvalidConfigError('config.sharding.identity must be a non-empty string');
  }
  if (o.children !== undefined && o.children !== 'follow' && o.children !== 'all') {
    throw new InvalidConfigError(
      `config.sharding.children must be 'follow' (children watched by their owner's shard) or 'all', got ${JSON.stringify(o.children)}`,
    );
  }
  if (o.sharder !== undefined && typeof o.sharder !== 'boolean') {
    throw new InvalidConfigError('config.sharding.sharder must be true or false');
  }
  const leaseDurationMs = ms(o.leaseDurationMs, 'config.sharding.leaseDurationMs', DEFAULT_LEASE_DURATION_MS);
  const renewDeadlineMs = ms(o.renewDeadlineMs, 'config.sharding.renewDeadlineMs', DEFAULT_RENEW_DEADLINE_MS);
  const retryPeriodMs = ms(o.retryPeriodMs, 'config.sharding.retryPeriodMs', DEFAULT_RETRY_PERIOD_MS);
  if (!(leaseDurationMs > renewDeadlineMs && renewDeadlineMs > retryPeriodMs)) {
    throw new InvalidConfigError('config.sharding needs leaseDurationMs > renewDeadlineMs > retryPeriodMs');
  }
  const out: ResolvedShardingOptions = {
    leaseNamespace: o.leaseNamespace,
    sharder: o.sharder ?? true,
    children: o.children ?? 'follow',
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
  };
  if (typeof o.identity === 'string') out.identity = o.identity;
  if (shardKey !== undefined) out.shardKey = shardKey as ShardKey;
  if (o.virtualNodes !== undefined) {
    if (
      typeof o.virtualNodes !== 'number' ||
      !Number.isInteger(o.virtualNodes) ||
      o.virtualNodes < 1 ||
      o.virtualNodes > 4000
    ) {
      throw new InvalidConfigError('config.sharding.virtualNodes must be an integer from 1 to 4000');
    }
    out.virtualNodes = o.virtualNodes;
  }
  return out;
}
