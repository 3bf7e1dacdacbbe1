/**
 * Thrown into a reconcile that ran longer than `reconcileTimeoutMs`.
 * @category Engine: Framework and ControllerCore
 */
export class ReconcileTimeoutError extends Error {
  override readonly name = 'ReconcileTimeoutError';
  /** The Event reason used for this error. */
  readonly reason = 'ReconcileTimeout';

  constructor(timeoutMs: number) {
    super(`reconcile did not finish within ${timeoutMs} ms and was aborted (config.reconcileTimeoutMs)`);
  }
}

/**
 * True for a {@link ReconcileTimeoutError}.
 * @category Engine: Framework and ControllerCore
 */
export function isReconcileTimeout(err: unknown): err is ReconcileTimeoutError {
  return err instanceof ReconcileTimeoutError;
}
