import { ERROR_KIND, hasKind } from '../errors/has-cause.js';

/**
 * Options of a {@link ReconcileError}.
 * @category Controllers (reconcile functions)
 */
export interface ReconcileErrorOptions {
  /** The underlying error. */
  cause?: unknown;
  /** Handed to the next call for this key (`req.state`), replacing the previous state. */
  state?: Record<string, unknown>;
  /**
   * Run again after this delay instead of the error backoff; the requeue wins: not counted as an error,
   * no Warning Event, no error condition (Go's `return ctrl.Result{RequeueAfter: d}, err`).
   */
  requeueAfterMs?: number;
}

/**
 * A failure of a reconcile function that also carries state for the next call, or a requeue that wins
 * over the error (Go's "return result, err").
 * @category Controllers (reconcile functions)
 */
export class ReconcileError extends Error {
  readonly [ERROR_KIND] = 'Reconcile';
  readonly state: Record<string, unknown> | undefined;
  readonly requeueAfterMs: number | undefined;

  constructor(message: string, options: ReconcileErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ReconcileError';
    this.state = options.state;
    this.requeueAfterMs = options.requeueAfterMs;
  }
}

/**
 * Whether `err` is a {@link ReconcileError} (not its causes: its state belongs to the outermost one).
 * @category Controllers (reconcile functions)
 */
export function isReconcileError(err: unknown): err is ReconcileError {
  return err instanceof ReconcileError || hasKind(err, 'Reconcile');
}
