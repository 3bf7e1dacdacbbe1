import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { promClient } from '../util/prom-client.js';

/**
 * The sharding metrics of one registry:
 * - `reconcilekit_shard_members{controller}`: ready members of the ring (the sharder's view);
 * - `reconcilekit_shard_assigned_keys{controller,shard}`: objects labelled with each shard (the sharder's view);
 * - `reconcilekit_shard_owned_keys{controller}`: objects this replica's shard watches (its cache);
 * - `reconcilekit_shard_is_member{controller}` / `reconcilekit_shard_is_sharder{controller}`: 1 while
 *   this replica holds a shard Lease / the sharder Lease;
 * - `reconcilekit_shard_handovers_total{controller,how}`: objects (re)assigned, by how — `assign` (had no
 *   shard), `drain` (asked the live owner to let go), `move` (from a dead or unknown shard), `hand-off`
 *   (labelled for its new owner by a replica stopping gracefully), `adopt` (a key of a shard released with
 *   a recorded ring, taken by its recorded owner before its label moved);
 * - `reconcilekit_shard_handover_seconds{controller}`: from the drain request to the new owner's label.
 * @category Sharding
 */
export class ShardingMetrics {
  readonly members: Gauge<'controller'>;
  readonly assignedKeys: Gauge<'controller' | 'shard'>;
  readonly ownedKeys: Gauge<'controller'>;
  readonly isMember: Gauge<'controller'>;
  readonly isSharder: Gauge<'controller'>;
  readonly handovers: Counter<'controller' | 'how'>;
  readonly handoverSeconds: Histogram<'controller'>;

  private static readonly byRegistry = new WeakMap<Registry, ShardingMetrics>();

  /** The metric set registered on `registry`, created on first use. */
  static for(registry: Registry): ShardingMetrics {
    let metrics = ShardingMetrics.byRegistry.get(registry);
    if (metrics === undefined) {
      metrics = new ShardingMetrics(registry);
      ShardingMetrics.byRegistry.set(registry, metrics);
    }
    return metrics;
  }

  private constructor(registry: Registry) {
    const p = promClient();
    const registers = [registry];
    this.members = new p.Gauge({
      name: 'reconcilekit_shard_members',
      help: 'Ready members of the shard ring, as the sharder sees them',
      labelNames: ['controller'],
      registers,
    });
    this.assignedKeys = new p.Gauge({
      name: 'reconcilekit_shard_assigned_keys',
      help: 'Objects labelled with each shard, as the sharder sees them',
      labelNames: ['controller', 'shard'],
      registers,
    });
    this.ownedKeys = new p.Gauge({
      name: 'reconcilekit_shard_owned_keys',
      help: "Objects in this replica's shard (its cache of the reconciled kind)",
      labelNames: ['controller'],
      registers,
    });
    this.isMember = new p.Gauge({
      name: 'reconcilekit_shard_is_member',
      help: '1 while this replica holds a shard Lease of the ring',
      labelNames: ['controller'],
      registers,
    });
    this.isSharder = new p.Gauge({
      name: 'reconcilekit_shard_is_sharder',
      help: "1 while this replica holds the ring's sharder Lease",
      labelNames: ['controller'],
      registers,
    });
    this.handovers = new p.Counter({
      name: 'reconcilekit_shard_handovers_total',
      help: 'Objects assigned to a shard, by how: assign (had none), drain (live owner asked to let go), move (owner dead or unknown), hand-off (labelled by a replica stopping gracefully), adopt (a key of a released shard taken by its recorded owner before its label moved)',
      labelNames: ['controller', 'how'],
      registers,
    });
    this.handoverSeconds = new p.Histogram({
      name: 'reconcilekit_shard_handover_seconds',
      help: "Time from the sharder's drain request to the new owner's label",
      labelNames: ['controller'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers,
    });
  }
}
