import type { Metric, Registry } from 'prom-client';
import { promClient } from '../util/prom-client.js';

/**
 * prom-client's default process metrics (`process_cpu_seconds_total`, `process_resident_memory_bytes`,
 * `nodejs_eventloop_lag_seconds`, heap and GC figures, …), created once per process and registered into
 * every registry that asks: one event-loop monitor however many controllers or tests make registries.
 */
let shared: Registry | undefined;

/**
 * Adds the process metrics to `registry` unless it already has them.
 * @category Observability: logs, metrics, Events, health
 */
export function addProcessMetrics(registry: Registry): void {
  if (shared === undefined) {
    shared = new (promClient().Registry)();
    promClient().collectDefaultMetrics({ register: shared });
  }
  if (registry === shared) return;
  for (const metric of shared.getMetricsAsArray()) {
    // getMetricsAsArray() returns the metric objects themselves (typed as their JSON shape).
    if (registry.getSingleMetric(metric.name) === undefined)
      registry.registerMetric(metric as unknown as Metric);
  }
}
