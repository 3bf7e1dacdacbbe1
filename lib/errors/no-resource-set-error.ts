import { ERROR_KIND, hasCause, hasKind } from './has-cause.js';

/**
 * No resource set handles the object. The engine treats this as "not mine": another version or controller owns the object, so it is ignored quietly.
 * @category Errors
 */
export class NoResourceSetError extends Error {
  readonly [ERROR_KIND] = 'NoResourceSet';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'NoResourceSetError';
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link NoResourceSetError}.
 * @category Errors
 */
export function isNoResourceSet(err: unknown): boolean {
  return hasCause(
    err,
    (candidate) => candidate instanceof NoResourceSetError || hasKind(candidate, 'NoResourceSet'),
  );
}
