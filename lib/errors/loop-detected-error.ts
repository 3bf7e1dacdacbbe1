import { ERROR_KIND, hasCause, hasKind } from './has-cause.js';

/**
 * A chain of wrapped resources (or errors) loops back on itself, so it has no underlying end.
 * @category Errors
 */
export class LoopDetectedError extends Error {
  readonly [ERROR_KIND] = 'LoopDetected';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LoopDetectedError';
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link LoopDetectedError}.
 * @category Errors
 */
export function isLoopDetected(err: unknown): boolean {
  return hasCause(
    err,
    (candidate) => candidate instanceof LoopDetectedError || hasKind(candidate, 'LoopDetected'),
  );
}
