import { ERROR_KIND, hasCause, hasKind } from './has-cause.js';

/**
 * How soon a pass that met a stale object runs again (sequencer: a 409 → requeue after 1 s, no error state).
 * @category Errors
 */
export const DEFAULT_STALE_REQUEUE_MS = 1_000;

/**
 * A write guarded by the object's resourceVersion was refused (409 Conflict): the object this pass holds is
 * older than the one on the server, so nothing was changed and — for a guarded task — the side effect did
 * not run. Not a failure: the engine runs the object again after {@link retryAfterMs} with its latest
 * version, without an error metric, a Warning Event or an error condition. The 409 is the `cause`.
 * @category Errors
 */
export class StaleObjectError extends Error {
  readonly [ERROR_KIND] = 'StaleObject';
  /** When the engine should try again. Default {@link DEFAULT_STALE_REQUEUE_MS}. */
  readonly retryAfterMs: number;

  constructor(message: string, options?: ErrorOptions & { retryAfterMs?: number }) {
    super(message, options);
    this.name = 'StaleObjectError';
    this.retryAfterMs = options?.retryAfterMs ?? DEFAULT_STALE_REQUEUE_MS;
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link StaleObjectError}.
 * @category Errors
 */
export function isStaleObject(err: unknown): boolean {
  return hasCause(err, (c) => c instanceof StaleObjectError || hasKind(c, 'StaleObject'));
}
