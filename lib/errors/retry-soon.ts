import { ConditionLockedError } from './condition-locked-error.js';
import { hasKind, MAX_CAUSE_DEPTH } from './has-cause.js';
import { StaleObjectError } from './stale-object-error.js';

/**
 * The delay after which the engine runs an object again when `err` (or an error on its `cause` chain) is
 * a {@link StaleObjectError} or a {@link ConditionLockedError}; undefined for any other error. Such a pass
 * is "retry soon", not a failure: counted as `requeue_after`, no error metric, no Warning Event, no error
 * condition, no backoff.
 * @category Errors
 */
export function retrySoonDelay(err: unknown): number | undefined {
  const seen = new Set<unknown>();
  let current: unknown = err;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH; depth++) {
    if (current === undefined || current === null || typeof current !== 'object' || seen.has(current)) {
      return undefined;
    }
    if (
      current instanceof StaleObjectError ||
      current instanceof ConditionLockedError ||
      hasKind(current, 'StaleObject') ||
      hasKind(current, 'ConditionLocked')
    ) {
      const ms = (current as { retryAfterMs?: unknown }).retryAfterMs;
      return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : 1_000;
    }
    seen.add(current);
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
