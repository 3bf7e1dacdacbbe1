/** How deep nested causes of a logged error are written. */
const MAX_CAUSE_DEPTH = 5;

/**
 * The JSON shape an `Error` takes in a log line.
 * @category Observability: logs, metrics, Events, health
 */
export interface SerialisedError {
  name: string;
  message: string;
  stack?: string;
  cause?: unknown;
}

/**
 * Turns an `Error` into plain JSON (name, message, stack, own enumerable fields, cause chain).
 * @category Observability: logs, metrics, Events, health
 */
export function serialiseError(err: Error, depth = 0): SerialisedError {
  const out: SerialisedError & Record<string, unknown> = {
    ...(err as unknown as Record<string, unknown>),
    name: err.name,
    message: err.message,
  };
  if (err.stack !== undefined) out.stack = err.stack;
  if (err.cause !== undefined) {
    out.cause =
      err.cause instanceof Error && depth < MAX_CAUSE_DEPTH
        ? serialiseError(err.cause, depth + 1)
        : err.cause;
  }
  return out;
}
