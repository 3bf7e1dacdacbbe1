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
import type { Data, RemoteResourceHooks } from './phase-types.js';
import { checkDiff, checkStep, stops } from './step-result.js';

/**
 * Options of {@link StdReconciler}.
 * @category Phases, status and guards
 */
export interface StdReconcilerOptions<Obj extends KubernetesObject, Meta> {
  /** The remote resource's hooks (seed `Reconciler`). Required: `read` and `diff`. */
  hooks: RemoteResourceHooks<Obj, Meta>;
  /** Status write at the end of a pass. Default: a `StatusWriter` on the engine's client; false: none. */
  status?: StatusWriter | false;
}

/**
 * A remote (non-Kubernetes) resource behind an object (operator-sdk-extra's `StdReconciler`), as a `Controller`
 * reconciler: configure → meta, read, diff, create if `needCreate`, update if `needUpdate`, onSuccess;
 * the status is written once at the end, only if it changed. Any step returning `{ requeueAfterMs }`
 * ends the pass. `onError` is called on every failure, then the error is rethrown (the seed's never ran:
 * a shadowed variable). With `hooks.delete` the engine manages a finalizer and `delete` runs only while
 * the object is being deleted (configure → read → delete), the finalizer going after it succeeded. A
 * stale object or a held guard lock skips `onError` (the engine retries soon).
 * @category Phases, status and guards
 */
export class StdReconciler<
  Obj extends KubernetesObject = KubernetesObject,
  Meta = unknown,
> implements Reconciler<Obj> {
  readonly reconcile: ReconcileFunction<Obj>;
  readonly cleanup?: ReconcileFunction<Obj>;
  private readonly hooks: RemoteResourceHooks<Obj, Meta>;
  private readonly status: PassStatus;

  constructor(options: StdReconcilerOptions<Obj, Meta>) {
    const hooks = (options as unknown as { hooks?: Partial<Record<string, unknown>> } | undefined)?.hooks;
    if (typeof hooks !== 'object') {
      throw new InvalidConfigError('new StdReconciler({ hooks }): hooks is required');
    }
    for (const name of ['read', 'diff'] as const) {
      if (typeof hooks[name] !== 'function') {
        throw new InvalidConfigError(`new StdReconciler: hooks.${name} must be a function`);
      }
    }
    for (const name of ['configure', 'create', 'update', 'delete', 'onError', 'onSuccess'] as const) {
      if (hooks[name] !== undefined && typeof hooks[name] !== 'function') {
        throw new InvalidConfigError(`new StdReconciler: hooks.${name} must be a function when given`);
      }
    }
    this.hooks = options.hooks;
    this.status = new PassStatus(options.status);
    this.reconcile = (ctx, req) => this.pass(ctx, req, false);
    if (this.hooks.delete !== undefined) this.cleanup = (ctx, req) => this.pass(ctx, req, true);
  }

  private async pass(
    ctx: ReconcileContext,
    req: ReconcileRequest<Obj>,
    deleting: boolean,
  ): Promise<ReconcileResult | undefined> {
    const h = this.hooks;
    const { obj, before } = workCopy(req.object);
    const data: Data = new Map();
    let meta: Meta | undefined;
    let result: ReconcileResult | undefined;
    let failure: unknown;
    try {
      const configured = (h.configure === undefined ? undefined : await h.configure(ctx, req, obj)) as Meta;
      meta = configured;
      if (deleting) await this.deleteFlow(ctx, obj, data, configured);
      else result = await this.updateFlow(ctx, obj, data, configured);
    } catch (err) {
      failure = err;
      if (retrySoonDelay(err) === undefined && h.onError !== undefined) {
        try {
          await h.onError(ctx, obj, data, meta, err);
        } catch (hookErr) {
          ctx.logger.warn('onError hook failed; the original error is kept', { err: hookErr });
        }
      }
    }
    await this.status.finish(ctx, before, obj, failure);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows whatever the hook threw
    if (failure !== undefined) throw failure;
    return result;
  }

  private async updateFlow(
    ctx: ReconcileContext,
    obj: Obj,
    data: Data,
    meta: Meta,
  ): Promise<ReconcileResult | undefined> {
    const h = this.hooks;
    let r = checkStep(await h.read(ctx, obj, data, meta), 'hooks.read');
    if (stops(r)) return r;
    const diff = checkDiff(await h.diff(obj, data, meta), 'hooks.diff');
    if (diff.diff !== undefined && diff.diff !== '') ctx.logger.debug('remote diff', { diff: diff.diff });
    if (diff.needCreate === true) {
      if (h.create === undefined)
        throw new InvalidConfigError('hooks.diff asked to create, but hooks.create is missing');
      r = checkStep(await h.create(ctx, obj, data, meta), 'hooks.create');
      if (stops(r)) return r;
    }
    if (diff.needUpdate === true) {
      if (h.update === undefined)
        throw new InvalidConfigError('hooks.diff asked to update, but hooks.update is missing');
      r = checkStep(await h.update(ctx, obj, data, meta), 'hooks.update');
      if (stops(r)) return r;
    }
    await h.onSuccess?.(ctx, obj, data, meta, diff);
    return undefined;
  }

  private async deleteFlow(ctx: ReconcileContext, obj: Obj, data: Data, meta: Meta): Promise<void> {
    // The seed let a requeue from read block deletion forever; deletion goes on regardless.
    checkStep(await this.hooks.read(ctx, obj, data, meta), 'hooks.read');
    await this.hooks.delete?.(ctx, obj, data, meta);
  }
}
