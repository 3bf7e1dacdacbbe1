import { isList } from '../../util/is-list.js';
import { noteFailureSite } from '../../errors/failure-site.js';
import { reconciliationCanceled, resourceCanceled } from '../../context/flags.js';
import { checkStepGate } from '../../context/step-gate.js';
import type { ReconcileContext } from '../../context/reconcile-context.js';
import { ExecutionFailedError } from '../../errors/execution-failed-error.js';
import type { Resource } from './resource.js';
import { CRUDResource, crudFlow } from './crud-resource.js';
import { isThenable, runFlow, type StepFlow } from '../../util/maybe-async.js';
import { passTraceKey, traceResource, traceStep } from '../../context/pass-trace.js';

type Path = 'ensureCreated' | 'ensureDeleted';

const PATCH_STEP = { ensureCreated: 'NewUpdatePatch', ensureDeleted: 'NewDeletePatch' } as const;

/**
 * processUpdate/processDelete as a `StepFlow` (internal; the engine runs it with `runFlow`). A CRUD
 * resource whose ensure method is CRUDResource's own is run step by step inside this flow, so a no-I/O
 * resource costs no microtask hop; any other resource's ensure call is yielded as one promise.
 */
export function* resourcesFlow<Obj>(
  ctx: ReconcileContext,
  obj: Obj,
  resources: readonly Resource<Obj>[],
  path: Path,
): StepFlow<void> {
  if (!isList(resources) || resources.length === 0) {
    throw new ExecutionFailedError(
      'resources must not be empty: give the resource set at least one resource',
    );
  }
  reconciliationCanceled.install(ctx);
  for (const resource of resources) {
    checkStepGate(ctx);
    const resourceCtx = ctx.withLogMeta({ resource: resource.name });
    resourceCanceled.install(resourceCtx);
    if (resource instanceof CRUDResource && resource[path] === CRUDResource.prototype[path]) {
      yield* (resource as CRUDResource<Obj>)[crudFlow](resourceCtx, obj, PATCH_STEP[path]);
    } else {
      // The live view's trace (debugPage only): the ensure call's duration, as one step.
      const trace = ctx.get(passTraceKey);
      const entry = trace === undefined ? undefined : traceResource(trace, resource.name);
      const t0 = entry === undefined ? 0 : performance.now();
      try {
        const done: unknown = resource[path](resourceCtx, obj);
        if (isThenable(done)) yield done;
      } catch (err) {
        if (entry !== undefined) entry.failedStep = path;
        noteFailureSite(err, { resource: resource.name, step: path });
        throw err;
      } finally {
        if (entry !== undefined) traceStep(entry, path, performance.now() - t0);
      }
    }
    if (reconciliationCanceled.is(ctx)) {
      resourceCtx.logger.debug('reconciliation canceled; skipping the remaining resources');
      return;
    }
  }
}

/**
 * Runs `ensureCreated` of every resource, in order (the update path, which also covers creation).
 *
 * Installs a fresh `reconciliationCanceled` for the call and a fresh `resourceCanceled` for each resource;
 * each resource's context logger carries `resource: <name>`. The first error stops the loop and is thrown
 * unchanged; `reconciliationCanceled` stops it with success; an aborted `ctx.signal` stops it with the
 * abort reason. No retries here: wrap resources with `wrapWithRetry` or rely on the engine's requeue.
 * An empty list is an `ExecutionFailedError`.
 * @category CRUD resources
 */
export async function processUpdate<Obj>(
  ctx: ReconcileContext,
  obj: Obj,
  resources: readonly Resource<Obj>[],
): Promise<void> {
  await runFlow(resourcesFlow(ctx, obj, resources, 'ensureCreated'));
}

/**
 * Like {@link processUpdate}, with `ensureDeleted` (the delete path).
 * @category CRUD resources
 */
export async function processDelete<Obj>(
  ctx: ReconcileContext,
  obj: Obj,
  resources: readonly Resource<Obj>[],
): Promise<void> {
  await runFlow(resourcesFlow(ctx, obj, resources, 'ensureDeleted'));
}
