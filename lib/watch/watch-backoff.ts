import {
  DEFAULT_WATCH_BACKOFF_FACTOR,
  DEFAULT_WATCH_BACKOFF_INITIAL_MS,
  DEFAULT_WATCH_BACKOFF_JITTER,
  DEFAULT_WATCH_BACKOFF_MAX_MS,
  DEFAULT_WATCH_BACKOFF_RESET_MS,
  type WatcherOptions,
} from './watcher-options.js';

/** Reconnect delays of a watcher: exponential with jitter, capped, reset after a long healthy stretch. */
export class WatchBackoff {
  private readonly initialMs: number;
  private readonly factor: number;
  private readonly maxMs: number;
  private readonly resetAfterMs: number;
  private readonly jitter: number;
  private attempt = 0;
  private healthySince: number | undefined;

  constructor(
    options: WatcherOptions['backoff'] = {},
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {
    this.initialMs = options.initialMs ?? DEFAULT_WATCH_BACKOFF_INITIAL_MS;
    this.factor = options.factor ?? DEFAULT_WATCH_BACKOFF_FACTOR;
    this.maxMs = options.maxMs ?? DEFAULT_WATCH_BACKOFF_MAX_MS;
    this.resetAfterMs = options.resetAfterMs ?? DEFAULT_WATCH_BACKOFF_RESET_MS;
    this.jitter = options.jitter ?? DEFAULT_WATCH_BACKOFF_JITTER;
  }

  /** Records that a watch is established and delivering. */
  healthy(): void {
    this.healthySince ??= this.now();
  }

  /** The delay before the next attempt after a failure. */
  next(): number {
    if (this.healthySince !== undefined && this.now() - this.healthySince >= this.resetAfterMs)
      this.attempt = 0;
    this.healthySince = undefined;
    const base = Math.min(this.initialMs * Math.pow(this.factor, this.attempt), this.maxMs);
    this.attempt += 1;
    const spread = 1 - this.jitter + 2 * this.jitter * this.random();
    return Math.round(Math.min(base * spread, this.maxMs));
  }
}
