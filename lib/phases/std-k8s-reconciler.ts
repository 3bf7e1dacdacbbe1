import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileContext } from '../context/reconcile-context.js';
import type {
  ReconcileFunction,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from '../controller/reconcile-types.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { retrySoonDelay } from '../errors/retry-soon.js';
import type { StatusWriter } from '../status/status-writer.js';
import { PassStatus, workCopy } from './pass-status.js';
import { PhaseError } from './phase-error.js';
import type { Data, K8sPhaseReconciler, K8sReconcilerHooks } from './phase-types.js';
import { checkK8sDiff, checkStep, stops } from './step-result.js';

/**
 * Options of {@link StdK8sReconciler}.
 * @category Phases, status and guards
 */
export interface StdK8sReconcilerOptions<Obj extends KubernetesObject> {
  /** Parent hooks (seed `K8sReconciler`). Default: none. */
  hooks?: K8sReconcilerHooks<Obj>;
  /** Phases, run in this order on every pass. Required (may be empty). */
  phases: readonly K8sPhaseReconciler<Obj>[];
  /** Status write at the end of a pass. Default: a `StatusWriter` on the engine's client; false: none. */
  status?: StatusWriter | false;
  /** One `Data` for the parent and every phase. Default false: a fresh map per phase (the seed's). */
  shareData?: boolean;
}

/**
 * Ordered phases over an object's Kubernetes children (operator-sdk-extra's `StdK8sReconciler`), as a `Controller`
 * reconciler: hooks.configure → hooks.read → each phase (configure → read → diff → create/update/delete
 * as flagged → onSuccess) → hooks.onSuccess; the status is written once at the end, only if it changed.
 * Any step returning `{ requeueAfterMs }` ends the pass. A phase's failure goes to its `onError` (return:
 * handled, the next phase runs) and then, wrapped as {@link PhaseError}, to `hooks.onError`. With
 * `hooks.delete` the engine manages a finalizer and `cleanup` runs configure → read → delete on deletion
 * (phases are skipped: children go with their owner through the garbage collector). A stale object or a
 * held guard lock skips the onError hooks (the engine retries soon). Seed bugs not copied: no 1 s sleep,
 * status-write errors propagate, no finalizer add on a deleting object.
 * @category Phases, status and guards
 */
export class StdK8sReconciler<Obj extends KubernetesObject = KubernetesObject> implements Reconciler<Obj> {
  readonly reconcile: ReconcileFunction<Obj>;
  readonly cleanup?: ReconcileFunction<Obj>;
  private readonly hooks: K8sReconcilerHooks<Obj>;
  private readonly phases: readonly K8sPhaseReconciler<Obj>[];
  private readonly status: PassStatus;
  private readonly shareData: boolean;

  constructor(options: StdK8sReconcilerOptions<Obj>) {
    const given: unknown = (options as { phases?: unknown } | undefined)?.phases;
    if (!Array.isArray(given)) {
      throw new InvalidConfigError(
        'new StdK8sReconciler({ phases }): phases must be an array of phase reconcilers',
      );
    }
    validatePhases(given as unknown[]);
    this.hooks = options.hooks ?? {};
    this.phases = [...options.phases];
    this.status = new PassStatus(options.status);
    this.shareData = options.shareData ?? false;
    this.reconcile = (ctx, req) => this.pass(ctx, req, false);
    if (typeof this.hooks.delete === 'function') this.cleanup = (ctx, req) => this.pass(ctx, req, true);
  }

  private async pass(
    ctx: ReconcileContext,
    req: ReconcileRequest<Obj>,
    deleting: boolean,
  ): Promise<ReconcileResult | undefined> {
    const { obj, before } = workCopy(req.object);
    const data: Data = new Map();
    let result: ReconcileResult | undefined;
    let failure: unknown;
    try {
      result = deleting
        ? await this.deleteFlow(ctx, req, obj, data)
        : await this.updateFlow(ctx, req, obj, data);
    } catch (err) {
      failure = err;
    }
    if (failure !== undefined && retrySoonDelay(failure) === undefined && this.hooks.onError !== undefined) {
      try {
        result = checkStep(await this.hooks.onError(ctx, obj, data, failure), 'hooks.onError');
        failure = undefined;
      } catch (err) {
        failure = err;
      }
    }
    await this.status.finish(ctx, before, obj, failure);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows whatever the step threw
    if (failure !== undefined) throw failure;
    return result;
  }

  private async updateFlow(
    ctx: ReconcileContext,
    req: ReconcileRequest<Obj>,
    obj: Obj,
    data: Data,
  ): Promise<ReconcileResult | undefined> {
    const h = this.hooks;
    let r = checkStep(await h.configure?.(ctx, req, obj), 'hooks.configure');
    if (stops(r)) return r;
    r = checkStep(await h.read?.(ctx, obj, data), 'hooks.read');
    if (stops(r)) return r;
    for (const phase of this.phases) {
      r = await this.runPhase(ctx, req, obj, phase, this.shareData ? data : new Map<string, unknown>());
      if (stops(r)) return r;
    }
    return checkStep(await h.onSuccess?.(ctx, obj, data), 'hooks.onSuccess');
  }

  private async deleteFlow(
    ctx: ReconcileContext,
    req: ReconcileRequest<Obj>,
    obj: Obj,
    data: Data,
  ): Promise<ReconcileResult | undefined> {
    const h = this.hooks;
    const r = checkStep(await h.configure?.(ctx, req, obj), 'hooks.configure');
    if (stops(r)) return r;
    // The seed let a requeue from read block deletion forever; deletion goes on regardless.
    checkStep(await h.read?.(ctx, obj, data), 'hooks.read');
    await h.delete?.(ctx, obj, data);
    return undefined;
  }

  private async runPhase(
    ctx: ReconcileContext,
    req: ReconcileRequest<Obj>,
    obj: Obj,
    phase: K8sPhaseReconciler<Obj>,
    data: Data,
  ): Promise<ReconcileResult | undefined> {
    const at = (step: string): string => step; // PhaseError adds the phase's name
    try {
      let r = checkStep(await phase.configure?.(ctx, req, obj), at('configure'));
      if (stops(r)) return r;
      r = checkStep(await phase.read?.(ctx, obj, data), at('read'));
      if (stops(r)) return r;
      const { diff, result } = checkK8sDiff(await phase.diff(ctx, obj, data), at('diff'));
      if (stops(result)) return result;
      if (diff.diff !== undefined && diff.diff !== '')
        ctx.logger.debug('phase diff', { phase: phase.name, diff: diff.diff });
      for (const step of ['create', 'update', 'delete'] as const) {
        const flag =
          step === 'create' ? diff.needCreate : step === 'update' ? diff.needUpdate : diff.needDelete;
        if (flag !== true) continue;
        if (phase[step] === undefined) {
          throw new InvalidConfigError(`${at('diff')} asked to ${step}, but the phase has no ${step}() step`);
        }
        const out =
          step === 'create'
            ? await phase.create?.(ctx, obj, data)
            : step === 'update'
              ? await phase.update?.(ctx, obj, data)
              : await phase.delete?.(ctx, obj, data);
        r = checkStep(out, at(step));
        if (stops(r)) return r;
      }
      return checkStep(await phase.onSuccess?.(ctx, obj, data, diff), at('onSuccess'));
    } catch (err) {
      if (retrySoonDelay(err) !== undefined) throw err;
      if (phase.onError === undefined) throw new PhaseError(phase.name, err);
      try {
        return checkStep(await phase.onError(ctx, obj, data, err), at('onError'));
      } catch (handled) {
        throw new PhaseError(phase.name, handled);
      }
    }
  }
}

function validatePhases(phases: unknown[]): void {
  const names = new Set<string>();
  phases.forEach((value, i) => {
    const where = `phases[${i}]`;
    const phase = value as { name?: unknown; diff?: unknown } | null;
    if (typeof phase !== 'object' || phase === null || typeof phase.name !== 'string' || phase.name === '') {
      throw new InvalidConfigError(`${where} needs a non-empty name`);
    }
    if (names.has(phase.name)) throw new InvalidConfigError(`${where}: two phases are named '${phase.name}'`);
    names.add(phase.name);
    if (typeof phase.diff !== 'function') {
      throw new InvalidConfigError(
        `${where} ('${phase.name}') needs a diff(ctx, obj, data) function: it decides create/update/delete`,
      );
    }
  });
}
