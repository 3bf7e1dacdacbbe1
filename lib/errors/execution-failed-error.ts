import { ERROR_KIND, hasCause, hasKind } from './has-cause.js';

/**
 * A reconciliation cannot proceed because of how it was called or routed (no resources to run, several resource sets claiming one object).
 * @category Errors
 */
export class ExecutionFailedError extends Error {
  readonly [ERROR_KIND] = 'ExecutionFailed';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ExecutionFailedError';
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link ExecutionFailedError}.
 * @category Errors
 */
export function isExecutionFailed(err: unknown): boolean {
  return hasCause(
    err,
    (candidate) => candidate instanceof ExecutionFailedError || hasKind(candidate, 'ExecutionFailed'),
  );
}
