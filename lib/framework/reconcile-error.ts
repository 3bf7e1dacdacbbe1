import { describeFailureSite, failureSite } from '../errors/failure-site.js';

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

/**
 * Default Event reason for reconcile errors that do not name their own.
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_ERROR_REASON = 'ReconcileError';

/**
 * The Event reason for `err`: its own CamelCase `reason` (e.g. ApiError's `Conflict`), else its class
 * name when it is more specific than `Error`, else `ReconcileError`.
 * @category Engine: Framework and ControllerCore
 */
export function errorReason(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const reason = (err as { reason?: unknown }).reason;
    if (typeof reason === 'string' && /^[A-Z][A-Za-z0-9]{0,127}$/.test(reason)) return reason;
    const name = (err as { name?: unknown }).name;
    if (typeof name === 'string' && name !== 'Error' && /^[A-Z][A-Za-z0-9]{0,127}$/.test(name)) return name;
  }
  return DEFAULT_ERROR_REASON;
}

/** A one-line message for `err`. */
export function errorMessage(err: unknown): string {
  const message = err instanceof Error ? (err.message === '' ? err.name : err.message) : String(err);
  const site = failureSite(err);
  return site === undefined ? message : `${describeFailureSite(site)}: ${message}`;
}
