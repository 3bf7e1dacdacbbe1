import { ERROR_KIND, hasCause, hasKind } from '../errors/has-cause.js';

/**
 * A phase of a `StdK8sReconciler` failed (and its `onError` did not handle it); `cause` is the error.
 * @category Phases, status and guards
 */
export class PhaseError extends Error {
  readonly [ERROR_KIND] = 'Phase';
  /** The phase's name. */
  readonly phase: string;

  constructor(phase: string, cause: unknown) {
    super(`phase ${phase}: ${cause instanceof Error ? cause.message : JSON.stringify(cause)}`, { cause });
    this.name = 'PhaseError';
    this.phase = phase;
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link PhaseError}.
 * @category Phases, status and guards
 */
export function isPhaseError(err: unknown): boolean {
  return hasCause(err, (c) => c instanceof PhaseError || hasKind(c, 'Phase'));
}
