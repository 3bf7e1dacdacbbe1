import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { promClient } from '../util/prom-client.js';
import { onCollect } from './collect-hook.js';
import { HistogramBuffer } from './histogram-buffer.js';

/**
 * controller-runtime's reconcile-time buckets, so existing dashboards and SLOs keep working.
 * @category Observability: logs, metrics, Events, health
 */
export const RECONCILE_TIME_BUCKETS: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25,
  1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
]);

/**
 * The `result` label values of `controller_runtime_reconcile_total`.
 * @category Observability: logs, metrics, Events, health
 */
export type ReconcileResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';
const RESULTS: readonly ReconcileResultLabel[] = ['success', 'error', 'requeue', 'requeue_after'];

/**
 * The `event` label values of `reconcilekit_framework_event_duration_seconds`.
 * @category Observability: logs, metrics, Events, health
 */
export type FrameworkEvent = 'update' | 'delete';
const EVENTS: readonly FrameworkEvent[] = ['update', 'delete'];

/** @category Observability: logs, metrics, Events, health */
export interface ControllerMetricsOptions {
  /** Registry the metrics are registered in (injected; several controllers may share one). */
  registry: Registry;
  /** Value of the `controller` label: the framework name. */
  controller: string;
}

/**
 * Metrics of one controller under controller-runtime's names and labels. Metrics are looked up in
 * the registry before being created, so several frameworks can share a registry (each with its own
 * `controller` label). Every label value is pre-initialised, so series exist from the first scrape.
 * @category Observability: logs, metrics, Events, health
 */
export class ControllerMetrics {
  readonly controller: string;
  private readonly reconcileTotal: Counter<'controller' | 'result'>;
  private readonly reconcileErrors: Counter<'controller'>;
  private readonly reconcileTimeouts: Counter<'controller'>;
  private readonly terminalErrors: Counter<'controller'>;
  private readonly panics: Counter<'controller'>;
  private readonly sourceErrors: Counter<'controller' | 'source'>;
  private readonly reconcileTime: Histogram<'controller'>;
  private readonly activeWorkers: Gauge<'controller'>;
  private readonly maxConcurrent: Gauge<'controller'>;
  private readonly eventDuration: Histogram<'controller' | 'event'>;
  private readonly lastReconciled: Gauge<'controller'>;
  // Counted here per reconcile and handed to prom-client when the metrics are read (see onCollect).
  private readonly pendingResults: Record<ReconcileResultLabel, number> = {
    success: 0,
    error: 0,
    requeue: 0,
    requeue_after: 0,
  };
  private activeDelta = 0;
  private lastSuccessMs: number | undefined;
  private readonly reconcileTimeBuffer: HistogramBuffer<'controller'>;
  private readonly eventBuffers: Record<FrameworkEvent, HistogramBuffer<'controller' | 'event'>>;

  constructor(options: ControllerMetricsOptions) {
    const { registry, controller } = options;
    this.controller = controller;
    this.reconcileTotal = counter(
      registry,
      'controller_runtime_reconcile_total',
      'Total number of reconciliations per controller',
      ['controller', 'result'],
    );
    this.reconcileErrors = counter(
      registry,
      'controller_runtime_reconcile_errors_total',
      'Total number of reconciliation errors per controller',
      ['controller'],
    );
    this.reconcileTimeouts = counter(
      registry,
      'controller_runtime_reconcile_timeouts_total',
      'Total number of reconciliation timeouts per controller',
      ['controller'],
    );
    this.terminalErrors = counter(
      registry,
      'controller_runtime_terminal_reconcile_errors_total',
      'Total number of terminal reconciliation errors per controller',
      ['controller'],
    );
    this.panics = counter(
      registry,
      'controller_runtime_reconcile_panics_total',
      'Total number of reconciliation panics per controller (a programming error: a TypeError, ReferenceError, RangeError or SyntaxError, or a thrown non-Error)',
      ['controller'],
    );
    this.sourceErrors = counter(
      registry,
      'reconcilekit_source_errors_total',
      'Watch events dropped because a predicate or mapper threw or returned garbage, per controller and source',
      ['controller', 'source'],
    );
    this.reconcileTime = histogram(
      registry,
      'controller_runtime_reconcile_time_seconds',
      'Length of time per reconciliation per controller',
      ['controller'],
      RECONCILE_TIME_BUCKETS,
    );
    this.activeWorkers = gauge(
      registry,
      'controller_runtime_active_workers',
      'Number of currently used workers per controller',
      ['controller'],
    );
    this.maxConcurrent = gauge(
      registry,
      'controller_runtime_max_concurrent_reconciles',
      'Maximum number of concurrent reconciles per controller',
      ['controller'],
    );
    this.eventDuration = histogram(
      registry,
      'reconcilekit_framework_event_duration_seconds',
      'Duration of one update or delete event handled by the framework',
      ['controller', 'event'],
      RECONCILE_TIME_BUCKETS,
    );
    this.lastReconciled = gauge(
      registry,
      'reconcilekit_controller_last_reconciled_timestamp_seconds',
      'Unix time of the last successful reconciliation per controller',
      ['controller'],
    );

    for (const result of RESULTS) this.reconcileTotal.inc({ controller, result }, 0);
    this.reconcileErrors.inc({ controller }, 0);
    this.reconcileTimeouts.inc({ controller }, 0);
    this.terminalErrors.inc({ controller }, 0);
    this.panics.inc({ controller }, 0);
    this.reconcileTime.zero({ controller });
    this.activeWorkers.set({ controller }, 0);
    this.maxConcurrent.set({ controller }, 0);
    for (const event of EVENTS) this.eventDuration.zero({ controller, event });
    this.lastReconciled.set({ controller }, 0);

    this.reconcileTimeBuffer = new HistogramBuffer(
      this.reconcileTime,
      { controller },
      RECONCILE_TIME_BUCKETS,
    );
    const eventBuffer = (event: FrameworkEvent): HistogramBuffer<'controller' | 'event'> =>
      new HistogramBuffer(this.eventDuration, { controller, event }, RECONCILE_TIME_BUCKETS);
    this.eventBuffers = { update: eventBuffer('update'), delete: eventBuffer('delete') };
    const flush = (): void => {
      this.flush();
    };
    onCollect(this.reconcileTotal, flush);
    onCollect(this.activeWorkers, flush);
    onCollect(this.lastReconciled, flush);
    onCollect(this.reconcileTime, flush);
    onCollect(this.eventDuration, flush);
  }

  /** Hands the counts kept since the last read to prom-client. */
  private flush(): void {
    const controller = this.controller;
    for (const result of RESULTS) {
      const n = this.pendingResults[result];
      if (n === 0) continue;
      this.pendingResults[result] = 0;
      this.reconcileTotal.inc({ controller, result }, n);
    }
    if (this.activeDelta !== 0) {
      this.activeWorkers.inc({ controller }, this.activeDelta);
      this.activeDelta = 0;
    }
    this.reconcileTimeBuffer.flush();
    for (const event of EVENTS) this.eventBuffers[event].flush();
    if (this.lastSuccessMs !== undefined) {
      this.lastReconciled.set({ controller }, this.lastSuccessMs / 1000);
      this.lastSuccessMs = undefined;
    }
  }

  /** Records the configured worker count. */
  setMaxConcurrentReconciles(workers: number): void {
    this.maxConcurrent.set({ controller: this.controller }, workers);
  }

  /** A worker picked up a key. */
  workerStarted(): void {
    this.activeDelta += 1;
  }

  /** A worker finished a key. */
  workerFinished(): void {
    this.activeDelta -= 1;
  }

  /** Records one finished reconciliation: its result, its duration, and the event path it took. */
  observeReconcile(result: ReconcileResultLabel, seconds: number, event?: FrameworkEvent): void {
    this.pendingResults[result] += 1;
    this.reconcileTimeBuffer.observe(seconds);
    if (event !== undefined) this.eventBuffers[event].observe(seconds);
    if (result === 'error') this.reconcileErrors.inc({ controller: this.controller });
    else this.lastSuccessMs = Date.now();
  }

  /** A reconciliation failed with a `TerminalError` (not retried until the object changes). */
  observeTerminal(): void {
    this.terminalErrors.inc({ controller: this.controller });
  }

  /** A reconciliation failed with what Go would call a panic (see {@link isPanic}). */
  observePanic(): void {
    this.panics.inc({ controller: this.controller });
  }

  /** A watch event was dropped because `source`'s predicate or mapper failed. */
  observeSourceError(source: string): void {
    this.sourceErrors.inc({ controller: this.controller, source });
  }

  /** A reconciliation was aborted by the per-reconcile timeout. */
  observeTimeout(): void {
    this.reconcileTimeouts.inc({ controller: this.controller });
  }
}

export function counter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: L[],
): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof promClient().Counter) return existing;
  return new (promClient().Counter)<L>({ name, help, labelNames, registers: [registry] });
}

export function gauge<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: L[],
): Gauge<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof promClient().Gauge) return existing;
  return new (promClient().Gauge)<L>({ name, help, labelNames, registers: [registry] });
}

export function histogram<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: L[],
  buckets: readonly number[],
): Histogram<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof promClient().Histogram) return existing;
  return new (promClient().Histogram)<L>({
    name,
    help,
    labelNames,
    buckets: [...buckets],
    registers: [registry],
  });
}

/**
 * What counts as a panic, controller-runtime's `controller_runtime_reconcile_panics_total`: an error that
 * means a bug rather than a failed operation — a `TypeError`, `ReferenceError`, `RangeError` or
 * `SyntaxError` (reading a property of undefined, an unknown name, a bad argument), or a thrown value that
 * is not an Error at all.
 * @category Observability: logs, metrics, Events, health
 */
export function isPanic(err: unknown): boolean {
  if (!(err instanceof Error)) return true;
  return (
    err instanceof TypeError ||
    err instanceof ReferenceError ||
    err instanceof RangeError ||
    err instanceof SyntaxError
  );
}
