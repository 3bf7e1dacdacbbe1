import type { KubernetesObject } from '@kubernetes/client-node';
import { finalizersKept, installFlags, reconciliationCanceled } from '../context/flags.js';
import type { ReconcileContext } from '../context/reconcile-context.js';
import { isNoResourceSet } from '../errors/no-resource-set-error.js';
import { resourcesFlow } from './resource/process.js';
import type { ResourceRouter } from './router/resource-router.js';
import { initCtxStep, ResourceSet } from './router/resource-set.js';
import { isThenable, type StepFlow } from '../util/maybe-async.js';
import type { PassBody, PassInfo, PassPlan, PassVerdict } from '../engine/pass-body.js';
import { requeueAfterKey } from '../engine/requeue.js';

const DONE: PassVerdict = Object.freeze({ kind: 'done' });
const KEEP: PassVerdict = Object.freeze({ kind: 'keepFinalizer' });

/**
 * The CRUD front end's part of a pass (`Framework`): the router picks the resource set, the context
 * gets fresh flags and the set's `initCtx`, then every resource runs `ensureCreated` or
 * `ensureDeleted`; `finalizersKept`/`reconciliationCanceled` on the delete path keep the finalizer,
 * `requeueAfter(ctx, ms)` on the update path asks for another run.
 */
export class CrudPassBody<Obj extends KubernetesObject> implements PassBody<Obj> {
  // Plans hold no per-pass state: one per resource set, so a pass allocates none.
  private readonly plans = new WeakMap<ResourceSet<Obj>, CrudPlan<Obj>>();

  constructor(private readonly router: ResourceRouter<Obj>) {}

  plan(obj: Obj, info: PassInfo): PassPlan<Obj> | undefined {
    let set;
    try {
      set = this.router.resourceSet(obj);
    } catch (err) {
      if (isNoResourceSet(err)) {
        info.logger.debug('did not find resource set; object is not ours');
        return undefined;
      }
      throw err;
    }
    let plan = this.plans.get(set);
    if (plan === undefined) {
      plan = new CrudPlan(set);
      this.plans.set(set, plan);
    }
    return plan;
  }
}

class CrudPlan<Obj extends KubernetesObject> implements PassPlan<Obj> {
  constructor(private readonly set: ResourceSet<Obj>) {}

  *prepare(ctx: ReconcileContext, obj: Obj): StepFlow<void> {
    installFlags(ctx);
    const set = this.set;
    const initialised =
      set instanceof ResourceSet && set.initCtx === ResourceSet.prototype.initCtx
        ? set[initCtxStep](ctx, obj)
        : set.initCtx(ctx, obj);
    if (isThenable(initialised)) yield initialised;
  }

  *apply(ctx: ReconcileContext, obj: Obj): StepFlow<PassVerdict> {
    yield* resourcesFlow(ctx, obj, this.set.resources(), 'ensureCreated');
    const delayMs = ctx.get(requeueAfterKey);
    return delayMs === undefined ? DONE : { kind: 'requeueAfter', delayMs };
  }

  *cleanup(ctx: ReconcileContext, obj: Obj): StepFlow<PassVerdict> {
    yield* resourcesFlow(ctx, obj, this.set.resources(), 'ensureDeleted');
    if (finalizersKept.is(ctx) || reconciliationCanceled.is(ctx)) {
      ctx.logger.debug('finalizer requested to be kept; deletion will be replayed', {
        finalizersKept: finalizersKept.is(ctx),
        reconciliationCanceled: reconciliationCanceled.is(ctx),
      });
      return KEEP;
    }
    return DONE;
  }
}
