import type { Gauge, Registry } from 'prom-client';
import { promClient } from '../util/prom-client.js';

/**
 * `leader_election_master_status{name}`: 1 while this process holds the lease `name`, else 0 — client-go's
 * name, so existing dashboards and alerts work. One gauge per registry.
 * @category Leader election
 */
export class LeaderElectionMetrics {
  readonly masterStatus: Gauge<'name'>;

  private static readonly byRegistry = new WeakMap<Registry, LeaderElectionMetrics>();

  /** The metric set registered on `registry`, created on first use. */
  static for(registry: Registry): LeaderElectionMetrics {
    let metrics = LeaderElectionMetrics.byRegistry.get(registry);
    if (metrics === undefined) {
      metrics = new LeaderElectionMetrics(registry);
      LeaderElectionMetrics.byRegistry.set(registry, metrics);
    }
    return metrics;
  }

  private constructor(registry: Registry) {
    this.masterStatus = new (promClient().Gauge)({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      labelNames: ['name'],
      registers: [registry],
    });
  }
}
