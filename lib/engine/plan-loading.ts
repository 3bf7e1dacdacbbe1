/**
 * While `reconcilekit plan` imports an operator's entry module, nothing in the process may start a
 * controller: a module that starts its operator when imported (instead of only as the main module) would
 * otherwise run it inside the plan — watching, logging refused writes and never returning. The mark is a
 * process-wide symbol, so a second copy of the package loaded by the entry sees it as well.
 */
const PLAN_LOADING = Symbol.for('reconcilekit.planLoading');

interface PlanLoadingState {
  /** What tried to start, in order (e.g. `Framework "greeting-operator".start()`). */
  refused: string[];
}

type Marked = typeof globalThis & { [PLAN_LOADING]?: PlanLoadingState };

/** Thrown (as a rejection) by a start while `reconcilekit plan` loads the module: nothing was started. */
export class StartDuringPlanError extends Error {
  override readonly name = 'StartDuringPlanError';

  constructor(what: string) {
    super(
      `${what} started nothing: \`reconcilekit plan\` is loading this module to plan it without running it. ` +
        'Start the operator only when the module is the main module (see docs/plan.md)',
    );
  }
}

/** Whether `err` is a {@link StartDuringPlanError}, also one made by another copy of the package. */
export function isStartDuringPlanError(err: unknown): err is StartDuringPlanError {
  return err instanceof Error && err.name === 'StartDuringPlanError';
}

/** Marks the process as loading a module for a plan; returns what tried to start since, and unmarks. */
export function beginPlanLoading(): { refused: () => readonly string[]; end: () => void } {
  const state: PlanLoadingState = { refused: [] };
  (globalThis as Marked)[PLAN_LOADING] = state;
  return {
    refused: () => state.refused,
    end: () => {
      if ((globalThis as Marked)[PLAN_LOADING] === state) (globalThis as Marked)[PLAN_LOADING] = undefined;
    },
  };
}

/** The error to reject a start of `what` with while a plan loads the module, or undefined to start. */
export function startRefusedByPlan(what: string): StartDuringPlanError | undefined {
  const state = (globalThis as Marked)[PLAN_LOADING];
  if (state === undefined) return undefined;
  state.refused.push(what);
  return new StartDuringPlanError(what);
}
