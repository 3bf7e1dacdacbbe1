import { reconciliationCanceled, resourceCanceled } from '../context/flags.js';
import type { ReconcileContext } from '../context/reconcile-context.js';
import { ExecutionFailedError } from '../errors/execution-failed-error.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import type { Logger } from '../observability/logger.js';
import { CRUD_STEP_METHODS, type CRUDResourceOps, type CRUDStep } from './crud-resource-ops.js';
import type { KubeObject } from './kube-object.js';
import { PATCH_PARTS, type Patch, type PatchPart } from './patch.js';
import type { Resource } from './resource.js';

/** Options of {@link CRUDResource}. */
export interface CRUDResourceOptions<Obj = KubeObject, State = unknown, Change = unknown> {
  /** The user's CRUD steps. Required; `ops.name` must be non-empty. */
  ops: CRUDResourceOps<Obj, State, Change>;
  /** Base logger for the steps instead of `ctx.logger`. Default: `ctx.logger`, which carries the reconciliation's meta. */
  logger?: Logger;
}

const APPLY_STEP: Record<PatchPart, CRUDStep> = {
  create: 'ApplyCreateChange',
  delete: 'ApplyDeleteChange',
  update: 'ApplyUpdateChange',
};

function validateOps(ops: unknown): void {
  if (typeof ops !== 'object' || ops === null) {
    throw new InvalidConfigError('config.ops must be an object implementing CRUDResourceOps');
  }
  const { name } = ops as { name?: unknown };
  if (typeof name !== 'string' || name === '') {
    throw new InvalidConfigError('config.ops.name must be a non-empty string');
  }
  for (const method of Object.values(CRUD_STEP_METHODS)) {
    if (typeof (ops as Record<string, unknown>)[method] !== 'function') {
      throw new InvalidConfigError(`config.ops.${method} must be a function (CRUD resource "${name}")`);
    }
  }
}

function isPatch(value: unknown): value is Patch {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Patch).has === 'function' &&
    typeof (value as Patch).get === 'function'
  );
}

/**
 * A {@link Resource} built from {@link CRUDResourceOps}: GetCurrentState → GetDesiredState →
 * NewUpdatePatch (ensureCreated) or NewDeletePatch (ensureDeleted) → ApplyCreateChange →
 * ApplyDeleteChange → ApplyUpdateChange.
 *
 * Before each of those six steps a checkpoint checks `reconciliationCanceled`, then `resourceCanceled`;
 * either one ends the flow with success. A flag raised inside a step takes effect at the next
 * checkpoint, so the step that raises it completes. An aborted `ctx.signal` ends the flow with the
 * abort reason (an error: the work was not done). Any step error ends the flow and is thrown unchanged.
 * Each step gets a context whose logger carries `function: <step>`.
 */
export class CRUDResource<Obj = KubeObject, State = unknown, Change = unknown> implements Resource<Obj> {
  /** The steps this resource runs; wrappers build new resources around wrapped ops, never mutate these. */
  readonly ops: CRUDResourceOps<Obj, State, Change>;
  /** The logger given in the options, if any. */
  readonly logger: Logger | undefined;

  constructor(options: CRUDResourceOptions<Obj, State, Change>) {
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new InvalidConfigError('config must be an object with ops');
    }
    validateOps(options.ops);
    this.ops = options.ops;
    this.logger = options.logger;
  }

  /** The name of the ops. */
  get name(): string {
    return this.ops.name;
  }

  /** Runs the flow with `newUpdatePatch`. */
  async ensureCreated(ctx: ReconcileContext, obj: Obj): Promise<void> {
    await this.run(ctx, obj, 'NewUpdatePatch');
  }

  /** Runs the flow with `newDeletePatch`. */
  async ensureDeleted(ctx: ReconcileContext, obj: Obj): Promise<void> {
    await this.run(ctx, obj, 'NewDeletePatch');
  }

  private async run(
    ctx: ReconcileContext,
    obj: Obj,
    patchStep: 'NewUpdatePatch' | 'NewDeletePatch',
  ): Promise<void> {
    const base = this.logger === undefined ? ctx : ctx.withLogger(this.logger);
    const step = (name: CRUDStep): ReconcileContext | undefined => this.checkpoint(base, name);

    let stepCtx = step('GetCurrentState');
    if (stepCtx === undefined) return;
    const current = await this.ops.getCurrentState(stepCtx, obj);

    stepCtx = step('GetDesiredState');
    if (stepCtx === undefined) return;
    const desired = await this.ops.getDesiredState(stepCtx, obj);

    stepCtx = step(patchStep);
    if (stepCtx === undefined) return;
    const patch =
      patchStep === 'NewUpdatePatch'
        ? await this.ops.newUpdatePatch(stepCtx, obj, current, desired)
        : await this.ops.newDeletePatch(stepCtx, obj, current, desired);
    if (patch !== undefined && patch !== null && !isPatch(patch)) {
      throw new ExecutionFailedError(
        `${this.name}: ${CRUD_STEP_METHODS[patchStep]} must return a Patch, undefined or null`,
      );
    }

    for (const part of PATCH_PARTS) {
      const applyStep = APPLY_STEP[part];
      stepCtx = step(applyStep);
      if (stepCtx === undefined) return;
      if (patch === undefined || patch === null || !patch.has(part)) continue;
      const change = patch.get(part) as Change;
      if (part === 'create') await this.ops.applyCreateChange(stepCtx, obj, change);
      else if (part === 'delete') await this.ops.applyDeleteChange(stepCtx, obj, change);
      else await this.ops.applyUpdateChange(stepCtx, obj, change);
    }
  }

  /** The step's context, or `undefined` when a flag says stop. Throws when the signal is aborted. */
  private checkpoint(ctx: ReconcileContext, step: CRUDStep): ReconcileContext | undefined {
    ctx.signal.throwIfAborted();
    const stepCtx = ctx.withLogMeta({ function: step });
    if (reconciliationCanceled.is(ctx)) {
      stepCtx.logger.debug('reconciliation canceled; skipping the rest of the resource');
      return undefined;
    }
    if (resourceCanceled.is(ctx)) {
      stepCtx.logger.debug('resource canceled; skipping the rest of the resource');
      return undefined;
    }
    return stepCtx;
  }
}
