/**
 * Per-key failure bookkeeping of the core: how many passes in a row failed (the `attempt` handed to
 * front ends and to a `RetryPolicy`) and which keys failed terminally. Entries exist only for keys
 * that are failing, and go on success, on a change of the object and when the key is gone.
 */
export class FailureLedger {
  private readonly attempts = new Map<string, number>();
  private readonly terminal = new Set<string>();

  /** Failed passes in a row for `key` (0: a fresh call). */
  attempt(key: string): number {
    return this.attempts.get(key) ?? 0;
  }

  /** Whether `key` is failing (a retry is pending or was given up) or failed terminally. */
  failing(key: string): boolean {
    return this.attempts.has(key) || this.terminal.has(key);
  }

  /** Whether the last pass of `key` failed terminally (no pass until the object changes). */
  isTerminal(key: string): boolean {
    return this.terminal.has(key);
  }

  /** Records a failed pass; returns the attempt it was (0 for the first failure). */
  failed(key: string, terminal: boolean): number {
    const attempt = this.attempt(key);
    this.attempts.set(key, attempt + 1);
    if (terminal) this.terminal.add(key);
    return attempt;
  }

  /** A pass succeeded, the object changed, or the key is gone: start afresh. */
  reset(key: string): void {
    this.attempts.delete(key);
    this.terminal.delete(key);
  }
}
