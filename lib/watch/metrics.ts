import type { Counter, Gauge, Registry } from 'prom-client';
import { promClient } from '../util/prom-client.js';

/**
 * Watch event types counted by `reconcilekit_watch_events_total`.
 * @category Watch and cache
 */
export const WATCH_EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'] as const;

/**
 * Watcher counters, one set per registry; each watcher is a `resource` series (e.g. `v1/ConfigMap`),
 * pre-initialised to 0.
 * @category Watch and cache
 */
export class WatcherMetrics {
  /** Re-watches after an error (connection refused, 5xx, broken stream). */
  readonly restarts: Counter<'resource'>;
  /** Full lists: the first one, and every relist after 410 Gone. */
  readonly relists: Counter<'resource'>;
  /** Events received, by type (relist diffs count as ADDED/MODIFIED/DELETED too). */
  readonly events: Counter<'resource' | 'type'>;
  /** Objects in the watcher's cache. */
  readonly objects: Gauge<'resource'>;
  /** 1 once the first list is in. */
  readonly synced: Gauge<'resource'>;

  private static readonly byRegistry = new WeakMap<Registry, WatcherMetrics>();

  /** The metric set registered on `registry`, created on first use. */
  static for(registry: Registry): WatcherMetrics {
    let metrics = WatcherMetrics.byRegistry.get(registry);
    if (metrics === undefined) {
      metrics = new WatcherMetrics(registry);
      WatcherMetrics.byRegistry.set(registry, metrics);
    }
    return metrics;
  }

  private constructor(registry: Registry) {
    const registers = [registry];
    this.restarts = new (promClient().Counter)({
      name: 'reconcilekit_watch_restarts_total',
      help: 'Watches re-opened after an error (connection refused, HTTP error, broken stream)',
      labelNames: ['resource'],
      registers,
    });
    this.relists = new (promClient().Counter)({
      name: 'reconcilekit_watch_relists_total',
      help: 'Full lists of a watched resource: the initial list and every relist after 410 Gone',
      labelNames: ['resource'],
      registers,
    });
    this.events = new (promClient().Counter)({
      name: 'reconcilekit_watch_events_total',
      help: 'Watch events received, by type',
      labelNames: ['resource', 'type'],
      registers,
    });
    this.objects = new (promClient().Gauge)({
      name: 'reconcilekit_watch_cached_objects',
      help: 'Objects in the watch cache',
      labelNames: ['resource'],
      registers,
    });
    this.synced = new (promClient().Gauge)({
      name: 'reconcilekit_watch_synced',
      help: '1 once the first list of the resource is in the cache',
      labelNames: ['resource'],
      registers,
    });
  }

  /** Pre-initialises every series of `resource` to 0. */
  init(resource: string): void {
    this.restarts.inc({ resource }, 0);
    this.relists.inc({ resource }, 0);
    for (const type of WATCH_EVENT_TYPES) this.events.inc({ resource, type }, 0);
    this.objects.set({ resource }, 0);
    this.synced.set({ resource }, 0);
  }
}
