import type { Metric, Registry } from 'prom-client';
import { promClient } from '../util/prom-client.js';

/**
 * prom-client's default process metrics (`process_cpu_seconds_total`, `process_resident_memory_bytes`,
 * `nodejs_eventloop_lag_seconds`, heap and GC figures, …), created once per process and registered into
 * every registry that asks: one event-loop monitor however many controllers or tests make registries.
 */
let shared: Registry | undefined;

/** The registry's methods that read or drop metrics; until the first call of one, the process metrics are not made. */
const READS = [
  'metrics',
  'getMetricsAsJSON',
  'getMetricsAsArray',
  'getSingleMetricAsString',
  'clear',
  'resetMetrics',
  'removeSingleMetric',
] as const;

/** Registries given to {@link addProcessMetrics} whose process metrics are not made yet. */
const pending = new WeakSet<Registry>();

/** Names of the metrics `collectDefaultMetrics` makes (no prefix is configured). */
function isProcessMetricName(name: string): boolean {
  return name.startsWith('process_') || name.startsWith('nodejs_');
}

function copyShared(registry: Registry): void {
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

/** Makes a pending registry's process metrics now and takes its read hooks off. */
function settle(registry: Registry): void {
  if (!pending.delete(registry)) return;
  for (const name of [...READS, 'getSingleMetric']) Reflect.deleteProperty(registry, name);
  copyShared(registry);
}

/**
 * Adds the process metrics to `registry` unless it already has them. They are made on the registry's first
 * read (a scrape, `metrics()`, `getMetricsAsJSON()`, `getMetricsAsArray()`, or `getSingleMetric` of a
 * `process_`/`nodejs_` name), not here: prom-client's process metrics load OpenTelemetry and an event-loop
 * monitor (80–100 ms of CPU and about 17 MiB), which an operator otherwise pays before its first reconcile.
 * Cumulative figures (CPU seconds, memory, start time) read the same; the event-loop lag and GC histograms
 * count from that first read.
 * @category Observability: logs, metrics, Events, health
 */
export function addProcessMetrics(registry: Registry): void {
  if (pending.has(registry)) return;
  if (shared !== undefined) {
    copyShared(registry);
    return;
  }
  pending.add(registry);
  type Method = (...args: unknown[]) => unknown;
  type Hooked = Record<(typeof READS)[number] | 'getSingleMetric', Method>;
  const own = registry as unknown as Hooked;
  const proto = Object.getPrototypeOf(registry) as Hooked;
  for (const name of READS) {
    own[name] = function read(this: unknown, ...args: unknown[]): unknown {
      settle(registry);
      return proto[name].apply(this, args);
    };
  }
  own.getSingleMetric = function getSingleMetric(this: unknown, ...args: unknown[]): unknown {
    if (typeof args[0] === 'string' && isProcessMetricName(args[0])) settle(registry);
    return proto.getSingleMetric.apply(this, args);
  };
}
