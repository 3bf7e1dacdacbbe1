import { sleep } from '../util/sleep.js';

/** How long {@link waitFor} waits when not told: long enough for a slow CI machine, short enough to fail fast. */
export const DEFAULT_WAIT_TIMEOUT_MS = 10_000;
/** Pause between two probes of {@link waitFor}. */
export const DEFAULT_WAIT_INTERVAL_MS = 50;

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this long. Default {@link DEFAULT_WAIT_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Pause between probes. Default {@link DEFAULT_WAIT_INTERVAL_MS}. */
  intervalMs?: number;
  /** What is awaited, for the timeout message (e.g. "website hello Ready"). Default "condition". */
  description?: string;
  /** Stops waiting (rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** Thrown by {@link waitFor} when the probe did not succeed in time; carries the probe's last error. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
  constructor(
    readonly description: string,
    readonly timeoutMs: number,
    /** The probe's last error, if its last call threw. */
    readonly lastError?: unknown,
  ) {
    const detail = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
    super(`timed out after ${timeoutMs} ms waiting for ${description}${detail}`, { cause: lastError });
  }
}

/** True for a {@link WaitTimeoutError}. */
export function isWaitTimeout(e: unknown): e is WaitTimeoutError {
  return e instanceof WaitTimeoutError;
}

/**
 * Calls `probe` until it returns something other than `undefined`, `null` or `false`, and resolves with
 * that value. A probe that throws counts as "not yet" (the object may not exist yet); its last error is
 * reported if time runs out. The probe always runs at least once, and nothing is left running afterwards.
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitForOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_WAIT_INTERVAL_MS;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
      lastError = undefined;
    } catch (e) {
      lastError = e;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitTimeoutError(options.description ?? 'condition', timeoutMs, lastError);
    await sleep(Math.min(intervalMs, left), options.signal);
  }
}
