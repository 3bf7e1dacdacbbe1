import { isList } from '../util/is-list.js';
import { reconciliationCanceled, resourceCanceled } from '../context/flags.js';
import type { ReconcileContext } from '../context/reconcile-context.js';
import { ExecutionFailedError } from '../errors/execution-failed-error.js';
import type { Resource } from './resource.js';

type Path = 'ensureCreated' | 'ensureDeleted';

async function processResources<Obj>(
  ctx: ReconcileContext,
  obj: Obj,
  resources: readonly Resource<Obj>[],
  path: Path,
): Promise<void> {
  if (!isList(resources) || resources.length === 0) {
    throw new ExecutionFailedError(
      'resources must not be empty: give the resource set at least one resource',
    );
  }
  reconciliationCanceled.install(ctx);
  for (const resource of resources) {
    ctx.signal.throwIfAborted();
    const resourceCtx = ctx.withLogMeta({ resource: resource.name });
    resourceCanceled.install(resourceCtx);
    await resource[path](resourceCtx, obj);
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
 */
export async function processUpdate<Obj>(
  ctx: ReconcileContext,
  obj: Obj,
  resources: readonly Resource<Obj>[],
): Promise<void> {
  await processResources(ctx, obj, resources, 'ensureCreated');
}

/** Like {@link processUpdate}, with `ensureDeleted` (the delete path). */
export async function processDelete<Obj>(
  ctx: ReconcileContext,
  obj: Obj,
  resources: readonly Resource<Obj>[],
): Promise<void> {
  await processResources(ctx, obj, resources, 'ensureDeleted');
}
