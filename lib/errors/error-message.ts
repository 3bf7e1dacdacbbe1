import { describeFailureSite, failureSite } from './failure-site.js';

/**
 * Default Event reason for reconcile errors that do not name their own.
 * @category Errors
 */
export const DEFAULT_ERROR_REASON = 'ReconcileError';

/**
 * The Event reason for `err`: its own CamelCase `reason` (e.g. ApiError's `Conflict`), else its class
 * name when it is more specific than `Error`, else `ReconcileError`.
 * @category Errors
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
