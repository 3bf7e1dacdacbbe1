import { ERROR_KIND, hasCause, hasKind } from './has-cause.js';

/**
 * How soon a pass that found its condition locked runs again (sequencer's tunnelling task: 1 s).
 * @category Errors
 */
export const DEFAULT_LOCKED_REQUEUE_MS = 1_000;

/**
 * `guard` found its condition locked (`Unknown`/`Locked`) by a pass that started less than the lock's TTL
 * ago, so it did not run the task. Not a failure: the engine runs the object again after
 * {@link retryAfterMs}, without an error metric, a Warning Event or an error condition.
 * @category Errors
 */
export class ConditionLockedError extends Error {
  readonly [ERROR_KIND] = 'ConditionLocked';
  /** The locked condition type. */
  readonly conditionType: string;
  /** The lock's `lastTransitionTime` (RFC 3339): when it was taken. */
  readonly since: string;
  /** When the engine should try again: the shorter of the requeue delay and the lock's remaining TTL. */
  readonly retryAfterMs: number;

  constructor(init: { conditionType: string; since: string; retryAfterMs: number; holder?: string }) {
    super(
      `condition ${init.conditionType} is locked since ${init.since}` +
        `${init.holder === undefined || init.holder === '' ? '' : ` by '${init.holder}'`}; retrying in ${init.retryAfterMs} ms`,
    );
    this.name = 'ConditionLockedError';
    this.conditionType = init.conditionType;
    this.since = init.since;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link ConditionLockedError}.
 * @category Errors
 */
export function isConditionLocked(err: unknown): boolean {
  return hasCause(err, (c) => c instanceof ConditionLockedError || hasKind(c, 'ConditionLocked'));
}
