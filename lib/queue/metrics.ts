import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { promClient } from '../util/prom-client.js';
import { DEFAULT_PRIORITY } from './priority.js';

/** The live numbers a queue exposes to its unfinished-work gauges at scrape time. */
export interface QueueProbe {
  readonly labels: { name: string; controller: string };
  /** Start times (ms) of the keys being processed now. */
  processingStarts(): Iterable<number>;
  /** Current time in ms (injectable clock). */
  now(): number;
  /** Adds counted since the last call (the queue counts in a field; the counter gets them when read). */
  takeAdds?(): number;
  /**
   * Depth changes per priority since the last call (counted like adds; gauge changes add up, so the read
   * is exact).
   */
  takeDepthDeltas?(): Iterable<[number, number]>;
  /** True: `workqueue_depth` is split by a `priority` label; false: one series with `priority=""`. */
  readonly priorityLabels?: boolean;
  /** Hands queue and work durations counted locally to the histograms. */
  flushDurations?(): void;
}

/**
 * The workqueue_* family with controller-runtime's names, labels and buckets, so existing dashboards work.
 * One set per registry; each queue is a `{name, controller}` series, pre-initialised to 0.
 * @category Work queue
 */
export class WorkQueueMetrics {
  readonly depth: Gauge<'name' | 'controller' | 'priority'>;
  readonly adds: Counter<'name' | 'controller'>;
  readonly queueDuration: Histogram<'name' | 'controller'>;
  readonly workDuration: Histogram<'name' | 'controller'>;
  readonly retries: Counter<'name' | 'controller'>;
  readonly unfinishedWork: Gauge<'name' | 'controller'>;
  /** Buckets of the two duration histograms. */
  readonly durationBuckets: readonly number[];
  readonly longestRunning: Gauge<'name' | 'controller'>;
  private readonly probes = new Set<QueueProbe>();
  /** Priority labels of `workqueue_depth` used per queue (`name\0controller`), so a new queue resets them. */
  private readonly depthSeries = new Map<string, Set<string>>();

  private static readonly byRegistry = new WeakMap<Registry, WorkQueueMetrics>();

  /** The metric set registered on `registry`, created on first use. */
  static for(registry: Registry): WorkQueueMetrics {
    let metrics = WorkQueueMetrics.byRegistry.get(registry);
    if (metrics === undefined) {
      metrics = new WorkQueueMetrics(registry);
      WorkQueueMetrics.byRegistry.set(registry, metrics);
    }
    return metrics;
  }

  private constructor(registry: Registry) {
    const labelNames = ['name', 'controller'] as const;
    const registers = [registry];
    const buckets = promClient().exponentialBuckets(1e-8, 10, 12);
    this.durationBuckets = Object.freeze([...buckets]);
    const probes = this.probes;
    this.depth = new (promClient().Gauge)({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue by workqueue and priority',
      labelNames: ['name', 'controller', 'priority'],
      registers,
      collect: () => {
        for (const probe of probes) this.flushDepth(probe);
      },
    });
    this.adds = new (promClient().Counter)({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames,
      registers,
      collect() {
        for (const probe of probes) flushAdds(this, probe);
      },
    });
    this.queueDuration = new (promClient().Histogram)({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames,
      buckets,
      registers,
      collect() {
        for (const probe of probes) probe.flushDurations?.();
      },
    });
    this.workDuration = new (promClient().Histogram)({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames,
      buckets,
      registers,
      collect() {
        for (const probe of probes) probe.flushDurations?.();
      },
    });
    this.retries = new (promClient().Counter)({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames,
      registers,
    });
    this.unfinishedWork = new (promClient().Gauge)({
      name: 'workqueue_unfinished_work_seconds',
      help:
        'How many seconds of work has been done that is in progress and has not been observed by ' +
        'work_duration. Large values indicate stuck threads.',
      labelNames,
      registers,
      collect() {
        for (const probe of probes) {
          const now = probe.now();
          let total = 0;
          for (const start of probe.processingStarts()) total += now - start;
          this.set(probe.labels, total / 1000);
        }
      },
    });
    this.longestRunning = new (promClient().Gauge)({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running.',
      labelNames,
      registers,
      collect() {
        for (const probe of probes) {
          const now = probe.now();
          let longest = 0;
          for (const start of probe.processingStarts()) longest = Math.max(longest, now - start);
          this.set(probe.labels, longest / 1000);
        }
      },
    });
  }

  /** Starts exporting `probe`'s series (all pre-initialised to 0). */
  attach(probe: QueueProbe): void {
    // Counts kept by queues already attached (maybe under the same labels) land before the reset below.
    for (const earlier of this.probes) {
      this.flushDepth(earlier);
      flushAdds(this.adds, earlier);
      earlier.flushDurations?.();
    }
    this.probes.add(probe);
    const used = this.depthLabels(probe);
    used.add(probe.priorityLabels === true ? String(DEFAULT_PRIORITY) : '');
    for (const priority of used) this.depth.set({ ...probe.labels, priority }, 0);
    this.adds.inc(probe.labels, 0);
    this.retries.inc(probe.labels, 0);
    this.queueDuration.zero(probe.labels);
    this.workDuration.zero(probe.labels);
    this.unfinishedWork.set(probe.labels, 0);
    this.longestRunning.set(probe.labels, 0);
  }

  /** Stops updating `probe`'s unfinished-work gauges and sets them to 0 (a stopped queue runs nothing). */
  detach(probe: QueueProbe): void {
    flushAdds(this.adds, probe);
    this.flushDepth(probe);
    probe.flushDurations?.();
    this.probes.delete(probe);
    this.unfinishedWork.set(probe.labels, 0);
    this.longestRunning.set(probe.labels, 0);
  }

  private depthLabels(probe: QueueProbe): Set<string> {
    const id = `${probe.labels.name}\u0000${probe.labels.controller}`;
    let used = this.depthSeries.get(id);
    if (used === undefined) {
      used = new Set();
      this.depthSeries.set(id, used);
    }
    return used;
  }

  private flushDepth(probe: QueueProbe): void {
    const deltas = probe.takeDepthDeltas?.();
    if (deltas === undefined) return;
    for (const [priority, delta] of deltas) {
      if (delta === 0) continue;
      const label = priorityLabel(probe, priority);
      this.depthLabels(probe).add(label);
      this.depth.inc({ ...probe.labels, priority: label }, delta);
    }
  }
}

function flushAdds(adds: Counter<'name' | 'controller'>, probe: QueueProbe): void {
  const n = probe.takeAdds?.() ?? 0;
  if (n > 0) adds.inc(probe.labels, n);
}

/** Distinct priority labels per queue before they are folded into one (controller-runtime's limit). */
const MAX_PRIORITY_LABELS = 25;
const PRIORITY_LABELS_EXCEEDED = 'exceeded_cardinality_limit';
const seenPriorities = new WeakMap<QueueProbe, Set<number>>();

function priorityLabel(probe: QueueProbe, priority: number): string {
  if (probe.priorityLabels !== true) return '';
  let seen = seenPriorities.get(probe);
  if (seen === undefined) {
    seen = new Set();
    seenPriorities.set(probe, seen);
  }
  if (!seen.has(priority)) {
    if (seen.size >= MAX_PRIORITY_LABELS) return PRIORITY_LABELS_EXCEEDED;
    seen.add(priority);
  }
  return String(priority);
}
