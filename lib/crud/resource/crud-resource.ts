import { reconciliationCanceled, resourceCanceled } from '../../context/flags.js';
import { checkStepGate } from '../../context/step-gate.js';
import type { ReconcileContext } from '../../context/reconcile-context.js';
import { ExecutionFailedError } from '../../errors/execution-failed-error.js';
import { noteFailureSite } from '../../errors/failure-site.js';
import { InvalidConfigError } from '../../errors/invalid-config-error.js';
import type { Logger } from '../../observability/logger.js';
import { CRUD_STEP_METHODS, type CRUDResourceOps, type CRUDStep } from './crud-resource-ops.js';
import type { KubeObject } from './kube-object.js';
import { PATCH_PARTS, type Patch, type PatchPart } from './patch.js';
import type { Resource } from './resource.js';
import { isThenable, runFlow, type StepFlow } from '../../util/maybe-async.js';
import {
  passTraceKey,
  traceApplied,
  traceResource,
  traceStep,
  type ResourceTrace,
} from '../../context/pass-trace.js';

/**
 * Options of {@link CRUDResource}.
 * @category CRUD resources
 */
export interface CRUDResourceOptions<Obj = KubeObject, State = unknown, Change = unknown> {
  /** The user's CRUD steps. Required; `ops.name` must be non-empty. */
  ops: CRUDResourceOps<Obj, State, Change>;
  /** Base logger for the steps instead of `ctx.logger`. Default: `ctx.logger`, which carries the reconciliation's meta. */
  logger?: Logger;
}

/** The CRUD flow as a step generator (see `runFlow`); internal: the engine's fast path, not exported. */
export const crudFlow: unique symbol = Symbol('crudFlow');

/** Log meta of each step's context, built once (loggers never mutate meta). */
const STEP_META = Object.fromEntries(
  Object.keys(CRUD_STEP_METHODS).map((step) => [step, Object.freeze({ function: step })]),
) as Record<CRUDStep, Readonly<{ function: CRUDStep }>>;

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
 * @category CRUD resources
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
    await runFlow(this[crudFlow](ctx, obj, 'NewUpdatePatch'));
  }

  /** Runs the flow with `newDeletePatch`. */
  async ensureDeleted(ctx: ReconcileContext, obj: Obj): Promise<void> {
    await runFlow(this[crudFlow](ctx, obj, 'NewDeletePatch'));
  }

  /**
   * The flow as a `StepFlow`: each step's result is yielded (plain value or promise) and comes back
   * settled, so steps that return plain values run without a microtask hop (see `runFlow`).
   */
  *[crudFlow](
    ctx: ReconcileContext,
    obj: Obj,
    patchStep: 'NewUpdatePatch' | 'NewDeletePatch',
  ): StepFlow<void> {
    const base = this.logger === undefined ? ctx : ctx.withLogger(this.logger);
    const ops = this.ops;
    // The live view's trace (debugPage only): one clock read per step, nothing when off.
    const trace = ctx.get(passTraceKey);
    const entry: ResourceTrace | undefined =
      trace === undefined ? undefined : traceResource(trace, this.name);
    let step: CRUDStep = 'GetCurrentState';
    let t0 = 0;
    try {
      let stepCtx = this.checkpoint(base, step);
      if (stepCtx === undefined) return;
      if (entry !== undefined) t0 = performance.now();
      // Only promises are yielded: a generator suspension per plain value costs more than the step.
      let result: unknown = ops.getCurrentState(stepCtx, obj);
      if (isThenable(result)) result = yield result;
      const current = result as State;
      if (entry !== undefined) {
        traceStep(entry, 'getCurrentState', performance.now() - t0);
        t0 = 0;
      }

      step = 'GetDesiredState';
      stepCtx = this.checkpoint(base, step);
      if (stepCtx === undefined) return;
      if (entry !== undefined) t0 = performance.now();
      result = ops.getDesiredState(stepCtx, obj);
      if (isThenable(result)) result = yield result;
      const desired = result as State;
      if (entry !== undefined) {
        traceStep(entry, 'getDesiredState', performance.now() - t0);
        t0 = 0;
      }

      step = patchStep;
      stepCtx = this.checkpoint(base, step);
      if (stepCtx === undefined) return;
      if (entry !== undefined) t0 = performance.now();
      result =
        patchStep === 'NewUpdatePatch'
          ? ops.newUpdatePatch(stepCtx, obj, current, desired)
          : ops.newDeletePatch(stepCtx, obj, current, desired);
      if (isThenable(result)) result = yield result;
      const patch = result as Patch<Change> | undefined | null;
      if (entry !== undefined) {
        traceStep(entry, CRUD_STEP_METHODS[patchStep], performance.now() - t0);
        t0 = 0;
      }
      if (patch !== undefined && patch !== null && !isPatch(patch)) {
        throw new ExecutionFailedError(
          `${this.name}: ${CRUD_STEP_METHODS[patchStep]} must return a Patch, undefined or null`,
        );
      }

      for (const part of PATCH_PARTS) {
        step = APPLY_STEP[part];
        stepCtx = this.checkpoint(base, step);
        if (stepCtx === undefined) return;
        if (patch === undefined || patch === null || !patch.has(part)) continue;
        const change = patch.get(part) as Change;
        if (entry !== undefined) t0 = performance.now();
        if (part === 'create') result = ops.applyCreateChange(stepCtx, obj, change);
        else if (part === 'delete') result = ops.applyDeleteChange(stepCtx, obj, change);
        else result = ops.applyUpdateChange(stepCtx, obj, change);
        if (isThenable(result)) yield result;
        if (entry !== undefined) {
          traceStep(entry, CRUD_STEP_METHODS[step], performance.now() - t0);
          traceApplied(entry, part, change);
          t0 = 0;
        }
      }
    } catch (err) {
      if (entry !== undefined) {
        const method = CRUD_STEP_METHODS[step];
        if (t0 > 0) traceStep(entry, method, performance.now() - t0);
        entry.failedStep = method;
      }
      // Not wrapped: the error stays yours; the engine's report names the resource and step.
      noteFailureSite(err, { resource: this.name, step: CRUD_STEP_METHODS[step] });
      throw err;
    }
  }

  /** The step's context, or `undefined` when a flag says stop. Throws when the signal is aborted. */
  private checkpoint(ctx: ReconcileContext, step: CRUDStep): ReconcileContext | undefined {
    checkStepGate(ctx);
    const stepCtx = ctx.withLogMeta(STEP_META[step]);
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
