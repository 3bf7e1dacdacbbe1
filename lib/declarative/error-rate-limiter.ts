/**
 * Errors the operator's error listeners get at once before the interval applies (dcontroller's `First: 3`).
 * @category Declarative operators
 */
export const DEFAULT_ERROR_RATE_FIRST = 3;
/**
 * After the first ones, at most one error per this many ms reaches the listeners (dcontroller's 2 s).
 * @category Declarative operators
 */
export const DEFAULT_ERROR_RATE_INTERVAL_MS = 2_000;

/**
 * Options of {@link ErrorRateLimiter}.
 * @category Declarative operators
 */
export interface ErrorRateLimiterOptions {
  /** How many calls pass unconditionally. Default {@link DEFAULT_ERROR_RATE_FIRST}. */
  first?: number;
  /** After those, the least time between two passing calls. Default {@link DEFAULT_ERROR_RATE_INTERVAL_MS}. */
  intervalMs?: number;
  /** The clock. Default `Date.now` (fake timers move it). */
  now?: () => number;
}

/**
 * Go's `rate.Sometimes{First, Interval}` as dcontroller uses it for its error channel: the first `first`
 * calls pass, then one call passes when at least `intervalMs` went by since the last that passed. Never
 * waits: a call that does not pass is refused at once (the error stays in the controller's history).
 * @category Declarative operators
 */
export class ErrorRateLimiter {
  private readonly first: number;
  private readonly intervalMs: number;
  private readonly now: () => number;
  private passed = 0;
  private last = -Infinity;
  /** Calls refused so far. */
  dropped = 0;

  constructor(options: ErrorRateLimiterOptions = {}) {
    this.first = options.first ?? DEFAULT_ERROR_RATE_FIRST;
    this.intervalMs = options.intervalMs ?? DEFAULT_ERROR_RATE_INTERVAL_MS;
    this.now = options.now ?? Date.now;
  }

  /** Whether this call passes; counts it either way. */
  allow(): boolean {
    const t = this.now();
    if (this.passed < this.first || t - this.last >= this.intervalMs) {
      this.passed++;
      this.last = t;
      return true;
    }
    this.dropped++;
    return false;
  }
}
