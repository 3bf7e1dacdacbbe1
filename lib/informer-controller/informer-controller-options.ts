import type { Tracer } from '@opentelemetry/api';
import type { CoreConfig } from '../engine/core-config.js';
import type { RetryPolicy } from '../engine/retry-policy.js';
import type { InformerSource } from '../watch/informer-cache.js';
import type { ErrorHandler } from './informer-pass-body.js';
import type { RetryDequeuePolicy } from './retry-dequeue-policy.js';

/**
 * What an `InformerController` watches for one kind (grafana's `KubernetesBasedInformer` and
 * `…WithFilters`): the engine's shared informer for this apiVersion, kind, namespace and selectors.
 * @category Informer controller (grafana-app-sdk)
 */
export interface InformerControllerSource extends InformerSource {
  /** Label selectors, ANDed into the `labelSelector` (grafana's `labelFilters`). Default none. */
  labelFilters?: readonly string[];
  /** Field selectors, ANDed into the `fieldSelector`. Default none. */
  fieldSelectors?: readonly string[];
}

/**
 * Options of an `InformerController`: grafana's fields plus the engine's (`CoreConfig`: workers,
 * leader election, health server, registry, logger, shutdown). Every option is optional.
 * @category Informer controller (grafana-app-sdk)
 */
export interface InformerControllerOptions extends Omit<
  CoreConfig,
  'name' | 'resource' | 'crd' | 'owns' | 'finalizer' | 'errorCondition' | 'retryPolicy' | 'resyncPeriodMs'
> {
  /** Controller name (metrics `controller` label, logs). Default `informer-controller`. */
  name?: string;
  /**
   * Called for every failed watcher and reconciler call (grafana ≥ #607 also for reconcilers).
   * Default {@link defaultErrorHandler}: logs the error with `component: 'InformerController'`.
   */
  errorHandler?: ErrorHandler;
  /**
   * When a failed call runs again: `(error, attempt)` with attempt 0 after the first failure. Default
   * `DEFAULT_RETRY_POLICY` (5 s × 2^attempt, 7 calls in all, as grafana); `null` never retries.
   */
  retryPolicy?: RetryPolicy | null;
  /**
   * Which of a handler's pending retries for an object a new event for that object drops. Default
   * none: the new event drops them all (grafana's `NewInformerController`); `opinionatedRetryDequeuePolicy`
   * keeps retries of a different action or the same generation.
   */
  retryDequeuePolicy?: RetryDequeuePolicy;
  /** Prefix of grafana's metric series (`<ns>_informer_events_total`, …). Default `''` (no prefix). */
  metricsNamespace?: string;
  /**
   * OpenTelemetry tracer for grafana's spans. Default `trace.getTracer('reconcilekit')` — a no-op
   * until the application registers a tracer provider.
   */
  tracer?: Tracer;
}

export type { InformerSource };
