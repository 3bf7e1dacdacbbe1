import type { Logger } from '../observability/logger.js';

/** How often a failure that keeps repeating is summarised in the log. */
export const REPEATED_FAILURE_SUMMARY_MS = 60_000;

/**
 * Logs a list/watch failure the first time it happens, with its fix; identical repeats are counted and
 * summarised at most once per {@link REPEATED_FAILURE_SUMMARY_MS} ("still failing: 37 times in 60 s"), and
 * the recovery is logged with the total. A 403 retried every few seconds for an hour is a handful of lines,
 * not a thousand.
 */
export class FailureSummary {
  private current: { key: string; count: number; since: number; lastSummary: number } | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly intervalMs = REPEATED_FAILURE_SUMMARY_MS,
  ) {}

  /** A failure: logged in full when new (a different error than the last), else counted. */
  failed(err: Error, delayMs: number, hint: string | undefined): void {
    const code = (err as { code?: unknown }).code;
    const key = `${typeof code === 'number' || typeof code === 'string' ? code : ''} ${err.name}: ${err.message}`;
    const now = this.now();
    const c = this.current;
    if (c === undefined || c.key !== key) {
      this.current = { key, count: 1, since: now, lastSummary: now };
      this.logger.warn(`list/watch failed; retrying in ${delayMs} ms`, { err, hint });
      return;
    }
    c.count += 1;
    if (now - c.lastSummary >= this.intervalMs) {
      c.lastSummary = now;
      this.logger.warn(
        `list/watch still failing with the same error: ${c.count} times in ${Math.round((now - c.since) / 1000)} s; retrying in ${delayMs} ms`,
        { error: err.message, hint },
      );
    }
  }

  /** The list or watch works again: logs the recovery when it had failed. */
  recovered(): void {
    const c = this.current;
    if (c === undefined) return;
    this.current = undefined;
    this.logger.info(
      `list/watch recovered after ${c.count} failure${c.count === 1 ? '' : 's'} in ${Math.round((this.now() - c.since) / 1000)} s`,
    );
  }
}
