import type { KubernetesObject } from '@kubernetes/client-node';
import type { Span, Tracer } from '@opentelemetry/api';
import { otelApi } from '../util/opentelemetry.js';
import type { ReconcileContext } from '../context/reconcile-context.js';
import { isReconcileError } from '../controller/reconcile-error.js';
import { checkResult } from '../controller/reconciler-pass-body.js';
import type { ReconcileRequest, ReconcileResult, Reconciler } from '../controller/reconcile-types.js';
import type { PassBody, PassInfo, PassPlan, PassVerdict } from '../engine/pass-body.js';
import { errorMessage } from '../errors/error-message.js';
import type { RetryPolicy } from '../engine/retry-policy.js';
import type { Logger } from '../observability/logger.js';
import { isThenable, type StepFlow } from '../util/maybe-async.js';
import { objectKey } from '../watch/store.js';
import type { InformerMetrics } from './informer-metrics.js';
import type { LedgerEntry, PendingRequest, RequestLedger } from './request-ledger.js';
import type { ResourceWatcher } from './resource-watcher.js';
import type { RetryDequeuePolicy } from './retry-dequeue-policy.js';

const DONE: PassVerdict = Object.freeze({ kind: 'done' });

/**
 * Called with every failed watcher or reconciler call (after metrics, before the retry is scheduled).
 * @category Informer controller (grafana-app-sdk)
 */
export type ErrorHandler = (ctx: ReconcileContext, err: unknown) => void;

/** What the body needs from its `InformerController`. */
export interface InformerPassBodyOptions {
  ledger: RequestLedger;
  /** The current handlers of a kind, watchers first, each in add order. */
  handlers(kind: string): readonly object[];
  errorHandler: ErrorHandler;
  retryPolicy: RetryPolicy | null;
  retryDequeuePolicy: RetryDequeuePolicy | undefined;
  metrics(): InformerMetrics;
  tracer: Tracer;
  logger: Logger;
}

/** One event's handlers in one pass: metrics and the event span. */
interface EventGroup {
  seq: number;
  labels: { event_type: string; kind: string };
  started: number;
  span: Span;
}

type CallOutcome =
  | { kind: 'done' }
  | { kind: 'requeue'; delayMs: number; state: Record<string, unknown> | undefined }
  | { kind: 'failed'; error: unknown };

const SPAN_NAMES = { CREATE: 'add', UPDATE: 'update', DELETE: 'delete' } as const;

/**
 * The `InformerController`'s part of a pass over one object (seed-parity §2.4): runs the object's due
 * requests from the {@link RequestLedger} — by event, then watchers before reconcilers in add order,
 * one at a time — and turns each call's result into done, a requeue (same attempt, new state) or a
 * failure (errorHandler, then the retry policy). The pass itself never fails: it ends `done` when
 * nothing is pending, else `requeueAfter` the earliest due time.
 */
export class InformerPassBody implements PassBody<KubernetesObject> {
  readonly edgeTriggered = true;
  private passes = 0;

  constructor(private readonly o: InformerPassBodyOptions) {}

  plan(_obj: KubernetesObject, info: PassInfo): PassPlan<KubernetesObject> {
    const run = (ctx: ReconcileContext): StepFlow<PassVerdict> => this.flow(ctx, info);
    return { apply: run, cleanup: run };
  }

  private *flow(ctx: ReconcileContext, info: PassInfo): StepFlow<PassVerdict> {
    return (yield this.run(ctx, info.key)) as PassVerdict;
  }

  private async run(ctx: ReconcileContext, key: string): Promise<PassVerdict> {
    const entry = this.o.ledger.get(key);
    if (entry === undefined) return DONE;
    this.passes += 1;
    const pass = this.passes;
    let group: EventGroup | undefined;
    try {
      for (;;) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        const next = this.next(entry, pass);
        if (next === undefined) break;
        next.pass = pass;
        if (group !== undefined && (!next.fresh || group.seq !== next.seq)) {
          this.closeGroup(group);
          group = undefined;
        }
        if (next.fresh) {
          group ??= this.openGroup(entry.kind, next);
          this.o.ledger.dequeue(entry, next, this.o.retryDequeuePolicy, (err) => {
            this.o.logger.error('retryDequeuePolicy threw; the retry is kept', { err, object: key });
          });
        }
        await this.call(ctx, key, entry.kind, next, group);
      }
    } finally {
      if (group !== undefined) this.closeGroup(group);
    }
    const due = this.o.ledger.settle(key);
    if (due === undefined) return DONE;
    return { kind: 'requeueAfter', delayMs: Math.max(0, due - Date.now()) };
  }

  /** The next due request: lowest event sequence, then handler order. */
  private next(entry: LedgerEntry, pass: number): PendingRequest | undefined {
    const order = this.o.handlers(entry.kind);
    const now = Date.now();
    let best: PendingRequest | undefined;
    let bestIndex = Infinity;
    for (const r of entry.requests) {
      if (r.pass === pass || r.dueAt > now) continue;
      const index = order.indexOf(r.target);
      if (index < 0) continue;
      if (best === undefined || r.seq < best.seq || (r.seq === best.seq && index < bestIndex)) {
        best = r;
        bestIndex = index;
      }
    }
    return best;
  }

  private openGroup(kind: string, r: PendingRequest): EventGroup {
    const labels = { event_type: r.action, kind };
    this.o.metrics().ongoingEvents.inc(labels);
    const span = this.o.tracer.startSpan(`controller-event-${SPAN_NAMES[r.action]}`, {
      attributes: attributes(kind, r.object),
    });
    return { seq: r.seq, labels, started: performance.now(), span };
  }

  private closeGroup(group: EventGroup): void {
    const m = this.o.metrics();
    m.ongoingEvents.dec(group.labels);
    m.eventDuration.observe(group.labels, (performance.now() - group.started) / 1000);
    group.span.end();
  }

  private async call(
    ctx: ReconcileContext,
    key: string,
    kind: string,
    r: PendingRequest,
    group: EventGroup | undefined,
  ): Promise<void> {
    const watcher = r.role === 'watcher';
    const labels = {
      event_type: !watcher && r.reconcileAction === 'resynced' ? 'RESYNC' : r.action,
      kind,
    };
    const m = this.o.metrics();
    const parent =
      group === undefined ? undefined : otelApi().trace.setSpan(otelApi().context.active(), group.span);
    const spanName = !r.fresh ? 'controller-retry' : watcher ? undefined : 'controller-event-reconcile';
    const span =
      spanName === undefined
        ? undefined
        : this.o.tracer.startSpan(
            spanName,
            { attributes: { ...attributes(kind, r.object), attempt: r.attempt } },
            parent,
          );
    m.ongoingProcesses.inc(labels);
    const started = performance.now();
    let outcome: CallOutcome;
    try {
      outcome = watcher
        ? await this.callWatcher(ctx, r)
        : await this.callReconciler(ctx, r, r.target as Reconciler);
    } finally {
      m.ongoingProcesses.dec(labels);
      (watcher ? m.watcherDuration : m.reconcilerDuration).observe(
        labels,
        (performance.now() - started) / 1000,
      );
    }
    if (outcome.kind === 'failed') {
      const failSpan = span ?? group?.span;
      failSpan?.recordException(outcome.error instanceof Error ? outcome.error : String(outcome.error));
      failSpan?.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: errorMessage(outcome.error) });
    } else if (outcome.kind === 'requeue') span?.setAttribute('requeueAfterMs', outcome.delayMs);
    span?.end();
    this.settle(ctx, key, r, outcome, labels, watcher);
  }

  private async callWatcher(ctx: ReconcileContext, r: PendingRequest): Promise<CallOutcome> {
    const w = r.target as ResourceWatcher;
    try {
      let result: unknown;
      if (r.action === 'CREATE') result = w.add?.(ctx, r.object);
      else if (r.action === 'UPDATE') result = w.update?.(ctx, r.old ?? r.object, r.object);
      else result = w.delete?.(ctx, r.object);
      if (isThenable(result)) await result;
      return { kind: 'done' };
    } catch (err) {
      return { kind: 'failed', error: err };
    }
  }

  private async callReconciler(
    ctx: ReconcileContext,
    r: PendingRequest,
    reconciler: Reconciler,
  ): Promise<CallOutcome> {
    const request: ReconcileRequest = {
      action: r.reconcileAction,
      object: r.object,
      key: objectKey(r.object),
      state: r.state,
      attempt: r.attempt,
    };
    let result: ReconcileResult | undefined;
    try {
      const value = reconciler.reconcile(ctx, request);
      result = checkResult(isThenable(value) ? await value : value, 'reconciler.reconcile');
    } catch (err) {
      if (isReconcileError(err)) {
        if (err.state !== undefined) r.state = err.state;
        const ms = err.requeueAfterMs;
        // The requeue wins over the error: not counted, not reported (grafana's "RequeueAfter + error").
        if (ms !== undefined && Number.isFinite(ms) && ms >= 0) {
          return { kind: 'requeue', delayMs: ms, state: err.state };
        }
      }
      return { kind: 'failed', error: err };
    }
    if (result?.requeueAfterMs !== undefined) {
      return { kind: 'requeue', delayMs: result.requeueAfterMs, state: result.state };
    }
    return { kind: 'done' };
  }

  private settle(
    ctx: ReconcileContext,
    key: string,
    r: PendingRequest,
    outcome: CallOutcome,
    labels: { event_type: string; kind: string },
    watcher: boolean,
  ): void {
    const ledger = this.o.ledger;
    if (outcome.kind === 'done') {
      ledger.remove(key, r);
      return;
    }
    if (outcome.kind === 'requeue') {
      if (!ledger.holds(key, r)) return;
      r.fresh = false;
      r.dueAt = Date.now() + outcome.delayMs;
      if (outcome.state !== undefined) r.state = outcome.state;
      return;
    }
    const error = outcome.error;
    (watcher ? this.o.metrics().watcherErrors : this.o.metrics().reconcilerErrors).inc(labels);
    try {
      this.o.errorHandler(ctx, error);
    } catch (err) {
      this.o.logger.error('errorHandler threw', { err, object: key });
    }
    if (!ledger.holds(key, r)) return;
    const policy = this.o.retryPolicy;
    let decision: ReturnType<RetryPolicy> = { retry: false };
    if (policy !== null) {
      try {
        decision = policy(error, r.attempt);
      } catch (err) {
        this.o.logger.error('retryPolicy threw; not retrying', { err, object: key });
      }
    }
    if (decision.retry && Number.isFinite(decision.delayMs) && decision.delayMs >= 0) {
      r.fresh = false;
      r.attempt += 1;
      r.lastError = error;
      r.dueAt = Date.now() + decision.delayMs;
    } else {
      ledger.remove(key, r);
      this.o.logger.warn('retry policy gave up on this call', {
        object: key,
        handler: watcher ? 'watcher' : 'reconciler',
        action: r.action,
        attempt: r.attempt,
      });
    }
  }
}

function attributes(kind: string, obj: KubernetesObject): Record<string, string> {
  return {
    'kind.name': kind,
    'object.namespace': obj.metadata?.namespace ?? '',
    'object.name': obj.metadata?.name ?? '',
  };
}
