import type { KubernetesObject } from '@kubernetes/client-node';
import { ReconcileContext } from '../context/reconcile-context.js';
import { passTraceKey, type PassTrace } from '../context/pass-trace.js';
import type { ControllerMetrics, FrameworkEvent } from '../observability/controller-metrics.js';
import type { Logger } from '../observability/logger.js';
import { isThenable, runFlow, type StepFlow } from '../util/maybe-async.js';
import type { FailureReporter } from './failure-report.js';
import type { AddFinalizerResult } from './finalizers.js';
import { hasFinalizer } from './finalizer-patch.js';
import type { PassBody, PassVerdict } from './pass-body.js';
import { passSignal } from './pass-signal.js';
import { pauseAnnotation } from './pause.js';
import { errorMessage } from '../errors/error-message.js';
import type { RemovedFinalizerMemory } from './removed-finalizer-memory.js';
import { isTerminalError } from './terminal-error.js';
import { retrySoonDelay } from '../errors/retry-soon.js';

/** What the engine does with a key after one pass. */
export type ReconcileOutcome =
  | {
      result: 'success';
      added?: KubernetesObject;
      tombstoneDone?: boolean;
      /** The pause annotation that stopped the pass before the body ran. */
      paused?: { key: string; value: string };
    }
  | { result: 'requeue_after'; delayMs: number }
  | { result: 'requeue' }
  | { result: 'error'; error: unknown; terminal: boolean }
  | { result: 'aborted' };

/** Finalizer API calls of the engine. */
export interface FinalizerOps<Obj> {
  add(obj: Obj, signal: AbortSignal): Promise<AddFinalizerResult>;
  remove(obj: Obj, signal: AbortSignal): Promise<boolean>;
}

/** What one pass needs from the core around it. */
export interface PassRunnerOptions<Obj extends KubernetesObject> {
  /** The front end's part of the pass. */
  body: PassBody<Obj>;
  /** Our finalizer, or false. */
  finalizer: string | false;
  /** Pause annotation keys. */
  pauseAnnotations: readonly string[];
  /** Base logger (already carrying `controller`). */
  logger: Logger;
  /** Controller metrics (a plan passes a recorder that counts nothing). */
  metrics: Pick<ControllerMetrics, 'observeReconcile'>;
  /** Where failures are logged, counted and posted (a plan collects them instead). */
  failures: Pick<FailureReporter, 'report'>;
  /** Objects whose deletion already succeeded. */
  memory: RemovedFinalizerMemory;
  /** Finalizer API calls; required when `finalizer` is a name. */
  finalizers: FinalizerOps<Obj> | undefined;
  /** Per-reconcile timeout (0 = none). */
  reconcileTimeoutMs: number;
  /** Puts engine values (client, caches, event recorder) into each new context. */
  prepareContext?: (ctx: ReconcileContext, obj: Obj) => void;
}

function objectLabel(obj: KubernetesObject, key: string): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name;
  if (name === undefined) return key;
  return ns === undefined || ns === '' ? name : `${ns}/${name}`;
}

function outcomeOf(verdict: PassVerdict): ReconcileOutcome {
  if (verdict.kind === 'requeueAfter') return { result: 'requeue_after', delayMs: verdict.delayMs };
  if (verdict.kind === 'keepFinalizer') return { result: 'requeue' };
  return { result: 'success' };
}

/**
 * One pass over one object, for every front end: the flow of docs/architecture.md ("How one event
 * flows"). Pause, deletion memory, finalizer add/remove, timeout, logging, metrics and failure reports
 * are here; the front end's {@link PassBody} does the rest. It never throws: every failure becomes an
 * outcome the core turns into queue actions.
 */
export class PassRunner<Obj extends KubernetesObject> {
  private readonly o: PassRunnerOptions<Obj>;
  private loop = 0;

  constructor(options: PassRunnerOptions<Obj>) {
    this.o = options;
  }

  /**
   * Reconciles `key`. `obj` is the latest cached object (undefined when gone); `tombstone` the last
   * known state of a gone object whose deletion is still to be handled (finalizers off).
   */
  async reconcile(
    key: string,
    obj: Obj | undefined,
    tombstone: Obj | undefined,
    attempt: number,
    signal: AbortSignal,
    trace?: PassTrace,
  ): Promise<ReconcileOutcome> {
    const target = obj ?? tombstone;
    if (target === undefined) {
      this.o.logger.debug('object is gone; nothing to reconcile', { object: key });
      return { result: 'success', tombstoneDone: true };
    }
    const deleting = obj === undefined || Boolean(target.metadata?.deletionTimestamp);
    const event: FrameworkEvent = deleting ? 'delete' : 'update';
    this.loop += 1;
    const logger = this.o.logger.child({
      object: objectLabel(target, key),
      event,
      loop: this.loop,
      version: target.metadata?.resourceVersion,
    });

    const ps = passSignal(signal, this.o.reconcileTimeoutMs);
    const started = performance.now();
    let outcome: ReconcileOutcome;
    try {
      // Without I/O the pass completes synchronously (no promise, no abort race to set up).
      const pass = runFlow(
        this.run(key, target, deleting, obj === undefined, attempt, logger, ps.signal, trace),
      );
      if (isThenable(pass)) outcome = await raceAbort(pass, ps.signal);
      else if (ps.signal.aborted) throw ps.signal.reason;
      else outcome = pass;
    } catch (err) {
      const timedOut = ps.timedOut;
      if (timedOut !== undefined) outcome = { result: 'error', error: timedOut, terminal: false };
      else if (signal.aborted) outcome = { result: 'aborted' };
      else {
        // A stale object or a held guard lock: not a failure, run again soon (sequencer's 409 → 1 s).
        const soon = retrySoonDelay(err);
        if (soon !== undefined) {
          logger.debug('object stale or condition locked; retrying soon', {
            delayMs: soon,
            reason: errorMessage(err),
          });
          outcome = { result: 'requeue_after', delayMs: soon };
        } else outcome = { result: 'error', error: err, terminal: isTerminalError(err) };
      }
    } finally {
      ps.dispose();
    }
    const seconds = (performance.now() - started) / 1000;
    if (outcome.result === 'aborted') {
      logger.info('reconciliation aborted', { reason: errorMessage(signal.reason) });
      return outcome;
    }
    this.o.metrics.observeReconcile(outcome.result, seconds, event);
    if (outcome.result === 'error') {
      this.o.failures.report(logger, target, outcome.error, signal, {
        terminal: outcome.terminal,
        live: obj !== undefined,
      });
    } else logger.debug('reconciled object', { result: outcome.result, seconds });
    return outcome;
  }

  /** The pass as a step flow (see `runFlow`): each awaited call is a `yield`. */
  private *run(
    key: string,
    obj: Obj,
    deleting: boolean,
    gone: boolean,
    attempt: number,
    logger: Logger,
    signal: AbortSignal,
    trace: PassTrace | undefined,
  ): StepFlow<ReconcileOutcome> {
    const paused = pauseAnnotation(obj, this.o.pauseAnnotations);
    if (paused !== undefined) {
      logger.debug(
        `cancelling reconciliation due to pause annotation \`${paused.key}\` set to \`${paused.value}\``,
      );
      return { result: 'success', paused };
    }
    const uid = obj.metadata?.uid;
    const finalizer = this.o.finalizer;
    if (deleting) {
      if (uid !== undefined && this.o.memory.has(uid)) {
        // The cleanup ran. If the object still carries our finalizer, either this is an event from
        // before our removal or the removal was lost (a server that forgot the write): removing it
        // again (re-read first, so a no-op when it is gone) is the only way it does not stay stuck.
        if (finalizer !== false && !gone && hasFinalizer(obj, finalizer) && this.o.finalizers !== undefined) {
          logger.debug('deletion handled, but our finalizer is still there; removing it again', {
            finalizer,
          });
          yield this.o.finalizers.remove(obj, signal);
        } else {
          logger.debug('deletion already handled for this object');
        }
        return { result: 'success', tombstoneDone: true };
      }
      if (finalizer !== false && !gone && !hasFinalizer(obj, finalizer)) {
        logger.debug('did not find our finalizer; skipping the delete path', { finalizer });
        return { result: 'success' };
      }
      if (finalizer !== false && gone) return { result: 'success', tombstoneDone: true };
    }

    const plan = this.o.body.plan(obj, { key, deleting, gone, attempt, logger });
    if (plan === undefined) return { result: 'success', tombstoneDone: true };

    const ctx = new ReconcileContext({ signal, logger });
    if (trace !== undefined) ctx.set(passTraceKey, trace);
    this.o.prepareContext?.(ctx, obj);
    if (plan.prepare !== undefined) yield* plan.prepare(ctx, obj);

    if (deleting) {
      const verdict = yield* plan.cleanup(ctx, obj);
      if (verdict.kind !== 'done') {
        logger.debug('finalizer kept; deletion will be replayed', { verdict: verdict.kind });
        return outcomeOf(verdict);
      }
      if (finalizer !== false && this.o.finalizers !== undefined) {
        logger.debug(`removing finalizer \`${finalizer}\``);
        yield this.o.finalizers.remove(obj, signal);
        logger.debug(`removed finalizer \`${finalizer}\``);
      }
      if (uid !== undefined && this.o.body.edgeTriggered !== true) this.o.memory.remember(uid);
      return { result: 'success', tombstoneDone: true };
    }

    if (finalizer !== false && this.o.finalizers !== undefined) {
      const added = (yield this.o.finalizers.add(obj, signal)) as AddFinalizerResult;
      if (added.outcome === 'added') {
        logger.debug('added finalizer; the next pass runs on the patched object', { finalizer });
        return { result: 'success', added: added.object };
      }
      if (added.outcome === 'deleting') {
        logger.debug('object is being deleted; not adding the finalizer');
        return { result: 'success' };
      }
    }
    return outcomeOf(yield* plan.apply(ctx, obj));
  }
}

/** Settles with `work`, or rejects as soon as `signal` aborts (a hung resource does not hold a worker). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      work.catch(() => undefined);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- pass resource errors through unchanged
        reject(err);
      },
    );
  });
}
