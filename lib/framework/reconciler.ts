import { setMaxListeners } from 'node:events';
import type { KubernetesObject } from '@kubernetes/client-node';
import { finalizersKept, installFlags, reconciliationCanceled } from '../context/flags.js';
import { ReconcileContext } from '../context/reconcile-context.js';
import { isNoResourceSet } from '../errors/no-resource-set-error.js';
import type { ControllerMetrics, FrameworkEvent } from '../observability/controller-metrics.js';
import type { EventRecorder } from '../observability/event-recorder.js';
import type { Logger } from '../observability/logger.js';
import { resourcesFlow } from '../resource/process.js';
import type { ResourceRouter } from '../router/resource-router.js';
import { initCtxStep, ResourceSet } from '../router/resource-set.js';
import { isThenable, runFlow, type StepFlow } from '../util/maybe-async.js';
import type { AddFinalizerResult } from './finalizers.js';
import { hasFinalizer } from './finalizer-patch.js';
import { pauseAnnotation } from './pause.js';
import { errorMessage, errorReason, isReconcileTimeout, ReconcileTimeoutError } from './reconcile-error.js';
import type { RemovedFinalizerMemory } from './removed-finalizer-memory.js';
import { requeueAfterKey } from './requeue.js';

/** What the engine does with a key after one pass. */
export type ReconcileOutcome =
  | { result: 'success'; added?: KubernetesObject; tombstoneDone?: boolean }
  | { result: 'requeue_after'; delayMs: number }
  | { result: 'requeue' }
  | { result: 'error'; error: unknown }
  | { result: 'aborted' };

/** What one reconciliation needs from the framework around it. */
export interface ReconcilerOptions<Obj extends KubernetesObject> {
  /** Controller name (logs, metrics). */
  name: string;
  /** Picks the resource set. */
  router: ResourceRouter<Obj>;
  /** Our finalizer, or false. */
  finalizer: string | false;
  /** Pause annotation keys. */
  pauseAnnotations: readonly string[];
  /** Base logger (already carrying `controller`). */
  logger: Logger;
  /** Controller metrics. */
  metrics: ControllerMetrics;
  /** Warning Events on errors; undefined without an API connection. */
  events: EventRecorder | undefined;
  /** Objects whose deletion already succeeded. */
  memory: RemovedFinalizerMemory;
  /** Finalizer API calls; required when `finalizer` is a name. */
  finalizers:
    | {
        add(obj: Obj, signal: AbortSignal): Promise<AddFinalizerResult>;
        remove(obj: Obj, signal: AbortSignal): Promise<boolean>;
      }
    | undefined;
  /** Per-reconcile timeout (0 = none). */
  reconcileTimeoutMs: number;
  /** Puts framework values (client, caches) into each new context. */
  prepareContext?: (ctx: ReconcileContext) => void;
}

function objectLabel(obj: KubernetesObject, key: string): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name;
  if (name === undefined) return key;
  return ns === undefined || ns === '' ? name : `${ns}/${name}`;
}

/**
 * One pass over one object: the flow of ARCHITECTURE.md ("How one event flows"). It never throws:
 * every failure becomes an outcome the framework turns into queue actions, and is logged, counted and
 * reported as a Warning Event on the object.
 */
export class Reconciler<Obj extends KubernetesObject> {
  private readonly o: ReconcilerOptions<Obj>;
  private loop = 0;

  constructor(options: ReconcilerOptions<Obj>) {
    this.o = options;
  }

  /**
   * Reconciles `key`. `obj` is the latest cached object (undefined when gone); `tombstone` the last
   * known state of an object whose DELETED event arrived while finalizers are off.
   */
  async reconcile(
    key: string,
    obj: Obj | undefined,
    tombstone: Obj | undefined,
    signal: AbortSignal,
  ): Promise<ReconcileOutcome> {
    const target = obj ?? tombstone;
    if (target === undefined) {
      this.o.logger.debug('object is gone; nothing to reconcile', { object: key });
      return { result: 'success' };
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

    // Without a timeout the worker's signal is the pass's signal: no per-pass AbortController. With
    // one, a controller per pass is linked to the worker's signal by a listener removed afterwards
    // (AbortSignal.any per pass piles up dependents on the long-lived parent signal in Node 20).
    let passSignal = signal;
    let timedOut: ReconcileTimeoutError | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onParentAbort: (() => void) | undefined;
    if (this.o.reconcileTimeoutMs > 0) {
      const controller = new AbortController();
      passSignal = controller.signal;
      // A resource may have many requests in flight on its pass's signal: each adds an abort listener.
      setMaxListeners(0, passSignal);
      onParentAbort = () => {
        controller.abort(signal.reason);
      };
      if (signal.aborted) onParentAbort();
      else signal.addEventListener('abort', onParentAbort, { once: true });
      timer = setTimeout(() => {
        timedOut = new ReconcileTimeoutError(this.o.reconcileTimeoutMs);
        controller.abort(timedOut);
      }, this.o.reconcileTimeoutMs);
    }
    const started = performance.now();
    let outcome: ReconcileOutcome;
    try {
      // Without I/O the pass completes synchronously (no promise, no abort race to set up).
      const pass = runFlow(this.run(target, deleting, obj === undefined, logger, passSignal));
      if (isThenable(pass)) outcome = await raceAbort(pass, passSignal);
      else if (passSignal.aborted) throw passSignal.reason;
      else outcome = pass;
    } catch (err) {
      if (timedOut !== undefined) outcome = { result: 'error', error: timedOut };
      else if (signal.aborted) outcome = { result: 'aborted' };
      else outcome = { result: 'error', error: err };
    } finally {
      clearTimeout(timer);
      if (onParentAbort !== undefined) signal.removeEventListener('abort', onParentAbort);
    }
    const seconds = (performance.now() - started) / 1000;
    if (outcome.result === 'aborted') {
      logger.info('reconciliation aborted', { reason: errorMessage(signal.reason) });
      return outcome;
    }
    this.o.metrics.observeReconcile(outcome.result, seconds, event);
    if (outcome.result === 'error') this.reportError(logger, target, outcome.error, signal);
    else logger.debug('reconciled object', { result: outcome.result, seconds });
    return outcome;
  }

  private reportError(logger: Logger, target: Obj, error: unknown, signal: AbortSignal): void {
    if (isReconcileTimeout(error)) this.o.metrics.observeTimeout();
    const reason = errorReason(error);
    logger.error('failed to reconcile', { reason, err: error });
    this.o.events?.record(
      target,
      { type: 'Warning', reason, message: errorMessage(error), action: 'Reconcile' },
      signal,
    );
  }

  /** The pass as a step flow (see `runFlow`): each awaited call is a `yield`. */
  private *run(
    obj: Obj,
    deleting: boolean,
    gone: boolean,
    logger: Logger,
    signal: AbortSignal,
  ): StepFlow<ReconcileOutcome> {
    const paused = pauseAnnotation(obj, this.o.pauseAnnotations);
    if (paused !== undefined) {
      logger.debug(
        `cancelling reconciliation due to pause annotation \`${paused.key}\` set to \`${paused.value}\``,
      );
      return { result: 'success' };
    }
    const uid = obj.metadata?.uid;
    const finalizer = this.o.finalizer;
    if (deleting) {
      if (uid !== undefined && this.o.memory.has(uid)) {
        logger.debug('deletion already handled for this object');
        return { result: 'success', tombstoneDone: true };
      }
      if (finalizer !== false && !gone && !hasFinalizer(obj, finalizer)) {
        logger.debug('did not find our finalizer; skipping the delete path', { finalizer });
        return { result: 'success' };
      }
      if (finalizer !== false && gone) return { result: 'success', tombstoneDone: true };
    }

    let set;
    try {
      set = this.o.router.resourceSet(obj);
    } catch (err) {
      if (isNoResourceSet(err)) {
        logger.debug('did not find resource set; object is not ours');
        return { result: 'success', tombstoneDone: true };
      }
      throw err;
    }

    const ctx = new ReconcileContext({ signal, logger });
    installFlags(ctx);
    this.o.prepareContext?.(ctx);
    const initialised =
      set instanceof ResourceSet && set.initCtx === ResourceSet.prototype.initCtx
        ? set[initCtxStep](ctx, obj)
        : set.initCtx(ctx, obj);
    if (isThenable(initialised)) yield initialised;
    const resources = set.resources();

    if (deleting) {
      yield* resourcesFlow(ctx, obj, resources, 'ensureDeleted');
      if (finalizersKept.is(ctx) || reconciliationCanceled.is(ctx)) {
        logger.debug('finalizer requested to be kept; deletion will be replayed', {
          finalizersKept: finalizersKept.is(ctx),
          reconciliationCanceled: reconciliationCanceled.is(ctx),
        });
        return { result: 'requeue' };
      }
      if (finalizer !== false && this.o.finalizers !== undefined) {
        logger.debug(`removing finalizer \`${finalizer}\``);
        yield this.o.finalizers.remove(obj, signal);
        logger.debug(`removed finalizer \`${finalizer}\``);
      }
      if (uid !== undefined) this.o.memory.remember(uid);
      return { result: 'success', tombstoneDone: true };
    }

    if (finalizer !== false && this.o.finalizers !== undefined) {
      const added = (yield this.o.finalizers.add(obj, signal)) as AddFinalizerResult;
      if (added.outcome === 'added') {
        logger.debug('added finalizer; the resulting event runs the next pass', { finalizer });
        return { result: 'success', added: added.object };
      }
      if (added.outcome === 'deleting') {
        logger.debug('object is being deleted; not adding the finalizer');
        return { result: 'success' };
      }
    }
    yield* resourcesFlow(ctx, obj, resources, 'ensureCreated');
    const delayMs = ctx.get(requeueAfterKey);
    if (delayMs !== undefined) return { result: 'requeue_after', delayMs };
    return { result: 'success' };
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
