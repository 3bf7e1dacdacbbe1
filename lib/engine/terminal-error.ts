import { ERROR_KIND, hasCause, hasKind } from '../errors/has-cause.js';

/**
 * A failure that retrying cannot fix (invalid spec, unsupported value): the engine logs it, counts it in
 * `controller_runtime_terminal_reconcile_errors_total`, posts one Warning Event and the error condition,
 * and does not retry until the object changes (controller-runtime's `reconcile.TerminalError`).
 * Any front end may throw it (a Controller's reconciler, a CRUD resource), also wrapped as a `cause`.
 * @category Engine: Framework and ControllerCore
 */
export class TerminalError extends Error {
  readonly [ERROR_KIND] = 'Terminal';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TerminalError';
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link TerminalError}.
 * @category Engine: Framework and ControllerCore
 */
export function isTerminalError(err: unknown): boolean {
  return hasCause(err, (c) => c instanceof TerminalError || hasKind(c, 'Terminal'));
}
