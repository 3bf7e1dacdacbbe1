/** Thrown for bad command-line arguments (exit code 2); the message says what to pass instead. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** True for a {@link UsageError}. */
export function isUsageError(e: unknown): e is UsageError {
  return e instanceof UsageError;
}
