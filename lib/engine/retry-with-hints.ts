import { isInvalidConfig } from '../errors/invalid-config-error.js';
import type { Logger } from '../observability/logger.js';
import { sleep } from '../util/sleep.js';
import { explainApiError } from '../kube/explain-api-error.js';

/** First delay between attempts of a start-up call; doubles up to {@link RETRY_MAX_DELAY_MS}. */
export const RETRY_BASE_DELAY_MS = 200;
/** Longest delay between attempts of a start-up call. */
export const RETRY_MAX_DELAY_MS = 10_000;

/**
 * Runs `fn` until it succeeds or `signal` aborts (then rethrows the last error, also when the abort comes
 * while waiting between attempts). Each distinct failure
 * is logged once, with its fix ({@link explainApiError}): a missing CRD or RBAC rule gives one clear
 * line, not one per retry. An {@link InvalidConfigError} is thrown at once.
 */
export async function retryWithHints<T>(
  what: string,
  logger: Logger,
  signal: AbortSignal,
  fn: () => Promise<T>,
): Promise<T> {
  let lastLine = '';
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      // A configuration the server rejects does not heal by retrying: fail now, with what to fix.
      if (signal.aborted || isInvalidConfig(err)) throw err;
      const line = explainApiError(err, what);
      if (line !== lastLine) logger.error(line, { err });
      lastLine = line;
      // Aborted while waiting: the last failure says more than the abort (e.g. a sync timeout).
      await sleep(Math.min(RETRY_BASE_DELAY_MS * 2 ** attempt, RETRY_MAX_DELAY_MS), signal).catch(() => {
        throw err;
      });
    }
  }
}
