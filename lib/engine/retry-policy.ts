import { InvalidConfigError } from '../errors/invalid-config-error.js';

/**
 * What a {@link RetryPolicy} decided about a failed pass: give up, or run again after `delayMs`.
 * @category Engine: Framework and ControllerCore
 */
export type RetryDecision = { retry: false } | { retry: true; delayMs: number };

/**
 * Decides whether and when a failed pass over one key runs again. `attempt` is 0 after the first
 * failure of a fresh call and grows by one per further failure; it resets after a success and after a
 * change of the object. Giving up leaves the key alone until its next change or resync.
 * @category Engine: Framework and ControllerCore
 */
export type RetryPolicy = (error: unknown, attempt: number) => RetryDecision;

/**
 * delay = `initialDelayMs` × 2^attempt; gives up once `attempt` > `maxAttempts` (grafana-app-sdk's
 * `ExponentialBackoffRetryPolicy`, its off-by-one kept: `maxAttempts` = 5 allows 6 retries, 7 calls in all).
 * @category Engine: Framework and ControllerCore
 */
export function exponentialBackoffRetryPolicy(initialDelayMs: number, maxAttempts: number): RetryPolicy {
  if (!Number.isFinite(initialDelayMs) || initialDelayMs < 0) {
    throw new InvalidConfigError(
      `exponentialBackoffRetryPolicy(initialDelayMs): must be a finite number of milliseconds >= 0; got ${String(initialDelayMs)}`,
    );
  }
  if (!Number.isInteger(maxAttempts) || maxAttempts < 0) {
    throw new InvalidConfigError(
      `exponentialBackoffRetryPolicy(_, maxAttempts): must be an integer >= 0; got ${String(maxAttempts)}`,
    );
  }
  return (_error, attempt) =>
    attempt > maxAttempts ? { retry: false } : { retry: true, delayMs: initialDelayMs * 2 ** attempt };
}

/**
 * grafana-app-sdk's default: 5 s initial delay, `maxAttempts` 5 — retries after 5, 10, 20, 40, 80 and
 * 160 s, so 7 calls in all (the first and 6 retries) over about 5 min 15 s, then it gives up until the
 * object changes. Not the default of `Framework`/`Controller` (that is the unlimited per-key backoff).
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = exponentialBackoffRetryPolicy(5_000, 5);
