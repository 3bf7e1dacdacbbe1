import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { counter, gauge, histogram } from '../observability/controller-metrics.js';

/**
 * grafana-app-sdk's histogram buckets (seconds): 5 ms … 100 s, 14 buckets.
 * @category Informer controller (grafana-app-sdk)
 */
export const INFORMER_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100,
]);

type Labels = 'event_type' | 'kind';

/**
 * grafana-app-sdk's `InformerController` series, named `<metricsNamespace>_…` (no prefix when the
 * namespace is empty), labelled `event_type` (CREATE, UPDATE, DELETE; RESYNC for reconcilers) and
 * `kind`. They sit beside the core's controller-runtime series in the same registry.
 * @category Informer controller (grafana-app-sdk)
 */
export class InformerMetrics {
  readonly events: Counter<Labels>;
  readonly eventDuration: Histogram<Labels>;
  readonly reconcilerDuration: Histogram<Labels>;
  readonly watcherDuration: Histogram<Labels>;
  readonly ongoingProcesses: Gauge<Labels>;
  readonly ongoingEvents: Gauge<Labels>;
  readonly reconcilerErrors: Counter<Labels>;
  readonly watcherErrors: Counter<Labels>;

  constructor(registry: Registry, metricsNamespace: string) {
    const n = (name: string): string => (metricsNamespace === '' ? name : `${metricsNamespace}_${name}`);
    const labels: Labels[] = ['event_type', 'kind'];
    const b = INFORMER_DURATION_BUCKETS;
    this.events = counter(registry, n('informer_events_total'), 'Informer events received', labels);
    this.eventDuration = histogram(
      registry,
      n('informer_reconcile_duration_seconds'),
      'Time to run every watcher and reconciler of a kind for one event',
      labels,
      b,
    );
    this.reconcilerDuration = histogram(
      registry,
      n('reconciler_process_duration_seconds'),
      'Time of one reconciler call',
      labels,
      b,
    );
    this.watcherDuration = histogram(
      registry,
      n('watcher_process_duration_seconds'),
      'Time of one watcher call',
      labels,
      b,
    );
    this.ongoingProcesses = gauge(
      registry,
      n('ongoing_reconcile_processes'),
      'Watcher and reconciler calls in progress',
      labels,
    );
    this.ongoingEvents = gauge(registry, n('ongoing_reconcile_events'), 'Events being handled', labels);
    this.reconcilerErrors = counter(
      registry,
      n('reconciler_errors_total'),
      'Failed reconciler calls (before any retry)',
      labels,
    );
    this.watcherErrors = counter(
      registry,
      n('watcher_errors_total'),
      'Failed watcher calls (before any retry)',
      labels,
    );
  }
}
