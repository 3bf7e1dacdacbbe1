import type { KubernetesObject } from '@kubernetes/client-node';
import { isPanic, type ControllerMetrics } from '../observability/controller-metrics.js';
import type { EventRecorder } from '../observability/event-recorder.js';
import type { Logger } from '../observability/logger.js';
import type { ErrorConditionWriter } from './error-condition.js';
import { describeFailureSite, failureSite } from '../errors/failure-site.js';
import { isReconcileTimeout } from './reconcile-timeout-error.js';
import { errorMessage, errorReason } from '../errors/error-message.js';

/** What {@link FailureReporter} writes to. */
export interface FailureReporterOptions {
  metrics: ControllerMetrics;
  /** Warning Events; undefined without an API connection or with `events: false`. */
  events: EventRecorder | undefined;
  /** The error condition on the object's status; undefined when off. */
  errorConditions: ErrorConditionWriter | undefined;
}

/**
 * The one place a failed pass is made visible: the log line, the timeout and terminal counters, the
 * Warning Event and the error condition. Every front end's failures go through here.
 */
export class FailureReporter {
  constructor(private readonly o: FailureReporterOptions) {}

  /**
   * Reports that the pass over `target` failed with `error`. `live`: the object still exists (the error
   * condition is written only then). `signal` must outlive the pass (the worker's).
   */
  report(
    logger: Logger,
    target: KubernetesObject,
    error: unknown,
    signal: AbortSignal,
    options: { terminal: boolean; live: boolean },
  ): void {
    if (isReconcileTimeout(error)) this.o.metrics.observeTimeout();
    if (options.terminal) this.o.metrics.observeTerminal();
    if (isPanic(error)) this.o.metrics.observePanic();
    const reason = errorReason(error);
    const site = failureSite(error);
    logger.error(
      options.terminal
        ? 'failed to reconcile (terminal: no retry until the object changes)'
        : 'failed to reconcile',
      {
        reason,
        ...(site === undefined ? {} : { failedAt: describeFailureSite(site) }),
        err: error,
      },
    );
    this.o.events?.record(
      target,
      { type: 'Warning', reason, message: errorMessage(error), action: 'Reconcile' },
      signal,
    );
    if (options.live) this.o.errorConditions?.failed(target, error, logger, signal);
  }
}
