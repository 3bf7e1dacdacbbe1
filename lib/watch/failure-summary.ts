import type { Logger } from '../observability/logger.js';

/** How often a failure that keeps repeating is summarised in the log. */
export const REPEATED_FAILURE_SUMMARY_MS = 60_000;

/**
 * How long a watcher that has never synced reports every failed attempt (at most one line a second)
 * before it falls back to the summary: 2 min, the default cache sync timeout a controller waits at start.
 */
export const STARTUP_REPORT_MS = 120_000;

/** Shortest gap between two start-up lines of the same failure (a fast backoff is not one line per try). */
const STARTUP_MIN_GAP_MS = 500;

/**
 * Logs list/watch failures with what they mean and what to fix (`explanation`).
 *
 * While the watcher has not synced yet (a controller waiting at start-up), every failed attempt is a
 * warning — at most two a second, for the first {@link STARTUP_REPORT_MS} — with the attempt count, the
 * wait so far and the next retry: someone waiting for an operator to start sees why it does not, as a
 * client-go reflector's user does. Otherwise a failure is logged in full the first time, identical
 * repeats are counted and summarised at most once per {@link REPEATED_FAILURE_SUMMARY_MS} ("still
 * failing: 37 times in 60 s"), and the recovery is logged with the total: a 403 retried every few
 * seconds for an hour is a handful of lines, not a thousand.
 */
export class FailureSummary {
  private current: { key: string; count: number; since: number; lastLine: number } | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly intervalMs = REPEATED_FAILURE_SUMMARY_MS,
  ) {}

  /**
   * A failure: logged in full when new (a different error than the last) or, with `waiting` (never
   * synced), while start-up reporting lasts; else counted.
   */
  failed(err: Error, delayMs: number, explanation: string | undefined, waiting = false): void {
    const code = (err as { code?: unknown }).code;
    const key = `${typeof code === 'number' || typeof code === 'string' ? code : ''} ${err.name}: ${err.message}`;
    const now = this.now();
    const c = this.current;
    const what = explanation ?? err.message;
    if (c === undefined || c.key !== key) {
      const since = c?.since ?? now;
      this.current = { key, count: (c?.count ?? 0) + 1, since, lastLine: now };
      const attempt = waiting
        ? ` (attempt ${this.current.count}, not synced for ${seconds(now - since)} s)`
        : '';
      this.logger.warn(`list/watch failed: ${what}; retrying in ${delayMs} ms${attempt}`, { err });
      return;
    }
    c.count += 1;
    if (waiting && now - c.since < STARTUP_REPORT_MS) {
      if (now - c.lastLine < STARTUP_MIN_GAP_MS) return;
      c.lastLine = now;
      this.logger.warn(
        `list/watch failed: ${what}; retrying in ${delayMs} ms (attempt ${c.count}, not synced for ${seconds(now - c.since)} s)`,
        { error: err.message },
      );
      return;
    }
    if (now - c.lastLine >= this.intervalMs) {
      c.lastLine = now;
      this.logger.warn(
        `list/watch still failing with the same error: ${c.count} times in ${seconds(now - c.since)} s; retrying in ${delayMs} ms: ${what}`,
        { error: err.message },
      );
    }
  }

  /** The list or watch works again: logs the recovery when it had failed. */
  recovered(): void {
    const c = this.current;
    if (c === undefined) return;
    this.current = undefined;
    this.logger.info(
      `list/watch recovered after ${c.count} failure${c.count === 1 ? '' : 's'} in ${seconds(this.now() - c.since)} s`,
    );
  }
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}
