import { isInvalidConfig } from '../errors/invalid-config-error.js';
import type { Logger } from '../observability/logger.js';
import { sleep } from '../util/sleep.js';
import { explainApiError } from '../kube/explain-api-error.js';

/** First delay between attempts of a start-up call; doubles up to {@link RETRY_MAX_DELAY_MS}. */
export const RETRY_BASE_DELAY_MS = 200;
/** Longest delay between attempts of a start-up call. */
export const RETRY_MAX_DELAY_MS = 10_000;
/** Shortest gap between two log lines of the same failure (the first tries follow each other fast). */
const REPEAT_LINE_GAP_MS = 500;

/**
 * Runs `fn` until it succeeds or `signal` aborts (then rethrows the last error, also when the abort comes
 * while waiting between attempts). Every failed attempt is logged with its fix ({@link explainApiError}) —
 * a new failure at once, the same one again at most twice a second — with the attempt count, the wait so
 * far and the next retry, so a start-up that waits for a missing CRD, an RBAC rule or an unreachable
 * server says so while it waits. `onProblem` gets the same line (undefined once `fn` succeeds), for
 * readiness. An {@link InvalidConfigError} is thrown at once.
 */
export async function retryWithHints<T>(
  what: string,
  logger: Logger,
  signal: AbortSignal,
  fn: () => Promise<T>,
  onProblem?: (line: string | undefined) => void,
): Promise<T> {
  let lastLine = '';
  let lastLogged = 0;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const value = await fn();
      onProblem?.(undefined);
      return value;
    } catch (err) {
      // A configuration the server rejects does not heal by retrying: fail now, with what to fix.
      if (signal.aborted || isInvalidConfig(err)) throw err;
      const line = explainApiError(err, what);
      onProblem?.(line);
      const delay = Math.min(RETRY_BASE_DELAY_MS * 2 ** attempt, RETRY_MAX_DELAY_MS);
      const now = Date.now();
      if (line !== lastLine || now - lastLogged >= REPEAT_LINE_GAP_MS) {
        const waited = Math.round((now - started) / 1000);
        logger.error(`${line} in ${delay} ms (attempt ${attempt + 1}, waiting for ${waited} s)`, { err });
        lastLogged = now;
      }
      lastLine = line;
      // Aborted while waiting: the last failure says more than the abort (e.g. a sync timeout).
      await sleep(delay, signal).catch(() => {
        throw err;
      });
    }
  }
}
