import { ERROR_KIND, hasCause, hasKind } from './has-cause.js';

/**
 * A controller run by an `Operator` did not finish `start()` within its start timeout (`startTimeoutMs`).
 * The message names the controller and the timeout; the operator reports it not ready and, when it was
 * starting with the others, stops and rejects with this error instead of waiting forever.
 * @category Errors
 */
export class StartTimeoutError extends Error {
  readonly [ERROR_KIND] = 'StartTimeout';

  constructor(
    /** The controller's name in the operator. */
    readonly member: string,
    /** The bound it exceeded, in milliseconds. */
    readonly timeoutMs: number,
  ) {
    super(
      `controller "${member}" did not finish start() within ${timeoutMs} ms; it is not ready and was stopped ` +
        '(find what its start() waits on — an unsynced watch, a hung connection — or raise startTimeoutMs)',
    );
    this.name = 'StartTimeoutError';
  }
}

/**
 * A controller run by an `Operator` failed to start in a way that is not its own rejected promise:
 * `start()` threw synchronously. The original error is the `cause`.
 * @category Errors
 */
export class MemberStartError extends Error {
  readonly [ERROR_KIND] = 'MemberStart';

  constructor(
    /** The controller's name in the operator. */
    readonly member: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'MemberStartError';
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link StartTimeoutError}.
 * @category Errors
 */
export function isStartTimeout(err: unknown): boolean {
  return hasCause(err, (c) => c instanceof StartTimeoutError || hasKind(c, 'StartTimeout'));
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link MemberStartError}.
 * @category Errors
 */
export function isMemberStart(err: unknown): boolean {
  return hasCause(err, (c) => c instanceof MemberStartError || hasKind(c, 'MemberStart'));
}
