import type { BackoffOptions } from 'exponential-backoff';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { lazyModule } from './lazy-module.js';
import { sleep } from './sleep.js';

/**
 * exponential-backoff, a CommonJS package, loaded by `require` on first use: an ES import of any CommonJS
 * package makes Node start its CommonJS export scanner (a WebAssembly module, ~8 MiB of RSS) when
 * `reconcilekit` is imported.
 */
const exponentialBackoff = lazyModule('exponential-backoff') as () => typeof import('exponential-backoff');

/**
 * exponential-backoff's options; what a {@link BackOffFactory} produces.
 * @category Utilities
 */
export type BackOffOptions = BackoffOptions;

/**
 * Produces fresh backoff options for one retried operation.
 * @category Utilities
 */
export type BackOffFactory = () => BackOffOptions;

/**
 * First delay: 500 ms (operatorkit's exponential default).
 * @category Utilities
 */
export const DEFAULT_BACKOFF_STARTING_DELAY_MS = 500;
/**
 * Growth per attempt: × 1.5.
 * @category Utilities
 */
export const DEFAULT_BACKOFF_MULTIPLIER = 1.5;
/**
 * Longest single delay: 60 s.
 * @category Utilities
 */
export const DEFAULT_BACKOFF_MAX_DELAY_MS = 60_000;
/**
 * Attempts in total, the first included: 8 (operatorkit's "max tries 7" = 7 retries + 1).
 * @category Utilities
 */
export const DEFAULT_BACKOFF_ATTEMPTS = 8;

/**
 * The default backoff: 500 ms × 1.5 per attempt with full jitter, capped at 60 s, 8 attempts in total
 * (about 16 s of nominal waiting). Used for engine operations such as finalizer patches.
 * @category Utilities
 */
export function defaultBackOffFactory(): BackOffOptions {
  return {
    startingDelay: DEFAULT_BACKOFF_STARTING_DELAY_MS,
    timeMultiple: DEFAULT_BACKOFF_MULTIPLIER,
    maxDelay: DEFAULT_BACKOFF_MAX_DELAY_MS,
    numOfAttempts: DEFAULT_BACKOFF_ATTEMPTS,
    jitter: 'full',
    delayFirstAttempt: false,
  };
}

/**
 * Nominal (un-jittered) delay before retry number `retry` (1 = the first retry).
 * @category Utilities
 */
export function backOffDelay(options: BackOffOptions, retry: number): number {
  const start = options.startingDelay ?? 100;
  const multiple = options.timeMultiple ?? 2;
  const max = options.maxDelay ?? Number.POSITIVE_INFINITY;
  return Math.min(start * multiple ** Math.max(0, retry - 1), max);
}

/**
 * Runs `request` with exponential-backoff's retry loop, honouring `signal`: exponential-backoff has no
 * AbortSignal, so the delays are slept here with an abortable timer (the library's own delays are set to
 * zero). Abort rejects with `signal.reason` at once, during a delay or before an attempt, and leaves no
 * timer behind. `options.retry` still decides whether an error is worth retrying.
 * @category Utilities
 */
export async function backOffAbortable<T>(
  request: (attempt: number) => Promise<T>,
  options: BackOffOptions = defaultBackOffFactory(),
  signal?: AbortSignal,
): Promise<T> {
  const attempts = options.numOfAttempts ?? 10;
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new InvalidConfigError(`backoff numOfAttempts must be an integer >= 1; got ${attempts}`);
  }
  const userRetry = options.retry;
  let attempt = 0;
  signal?.throwIfAborted();
  if (options.delayFirstAttempt === true) await sleep(options.startingDelay ?? 100, signal);
  return exponentialBackoff().backOff(
    async () => {
      signal?.throwIfAborted();
      attempt += 1;
      return request(attempt);
    },
    {
      numOfAttempts: attempts,
      startingDelay: 0,
      maxDelay: 0,
      jitter: 'none',
      delayFirstAttempt: false,
      retry: async (err: unknown, next: number) => {
        if (signal?.aborted === true || next >= attempts) return false;
        if (userRetry !== undefined && !(await userRetry(err, next))) return false;
        const nominal = backOffDelay(options, next);
        await sleep(options.jitter === 'full' ? Math.round(Math.random() * nominal) : nominal, signal);
        return true;
      },
    },
  );
}
