/**
 * Decides how long a key waits before its next retry. `when` records one more failure; `forget` clears the
 * history after a success. Same contract as client-go's `workqueue.RateLimiter`.
 * @category Work queue
 */
export interface RateLimiter {
  /** Delay in ms before `key` is retried, counting this call as one more failure. */
  when(key: string): number;
  /** Clears `key`'s failure history (call on success). */
  forget(key: string): void;
  /** Failures recorded for `key` since the last forget. */
  numRequeues(key: string): number;
}

/**
 * First retry delay. 5 ms, as client-go/controller-runtime: a transient conflict retries almost at once.
 * @category Work queue
 */
export const DEFAULT_RATE_LIMIT_BASE_DELAY_MS = 5;
/**
 * Growth per failure. ×2, as client-go.
 * @category Work queue
 */
export const DEFAULT_RATE_LIMIT_FACTOR = 2;
/**
 * Ceiling. 1000 s, as client-go: a permanently broken object is retried about every 17 min.
 * @category Work queue
 */
export const DEFAULT_RATE_LIMIT_MAX_DELAY_MS = 1_000_000;

/**
 * Options of {@link ExponentialRateLimiter}.
 * @category Work queue
 */
export interface ExponentialRateLimiterOptions {
  /** First delay in ms. Default {@link DEFAULT_RATE_LIMIT_BASE_DELAY_MS}. */
  baseDelayMs?: number;
  /** Multiplier per failure. Default {@link DEFAULT_RATE_LIMIT_FACTOR}. */
  factor?: number;
  /** Maximum delay in ms. Default {@link DEFAULT_RATE_LIMIT_MAX_DELAY_MS}. */
  maxDelayMs?: number;
}

/**
 * Per-key exponential backoff: `base × factor^failures`, capped; reset by `forget`.
 * @category Work queue
 */
export class ExponentialRateLimiter implements RateLimiter {
  private readonly baseDelayMs: number;
  private readonly factor: number;
  private readonly maxDelayMs: number;
  private readonly failures = new Map<string, number>();

  constructor(options: ExponentialRateLimiterOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? DEFAULT_RATE_LIMIT_BASE_DELAY_MS;
    this.factor = options.factor ?? DEFAULT_RATE_LIMIT_FACTOR;
    this.maxDelayMs = options.maxDelayMs ?? DEFAULT_RATE_LIMIT_MAX_DELAY_MS;
    if (!(this.baseDelayMs >= 0) || !(this.factor >= 1) || !(this.maxDelayMs >= this.baseDelayMs)) {
      throw new RangeError(
        'ExponentialRateLimiter needs baseDelayMs >= 0, factor >= 1, maxDelayMs >= baseDelayMs',
      );
    }
  }

  when(key: string): number {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    const delay = this.baseDelayMs * Math.pow(this.factor, failures);
    return Number.isFinite(delay) ? Math.min(delay, this.maxDelayMs) : this.maxDelayMs;
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}
