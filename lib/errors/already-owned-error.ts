import { ERROR_KIND, hasCause, hasKind } from './has-cause.js';

/**
 * `setControllerReference` was asked to make an object the controller of a child that already has another
 * controller (an ownerReference with `controller: true` and a different uid). An object has at most one
 * controller: remove the other reference first, or set a plain (non-controller) owner reference.
 * @category Errors
 */
export class AlreadyOwnedError extends Error {
  readonly [ERROR_KIND] = 'AlreadyOwned';
  /** The controller reference the child already has. */
  readonly existing: { apiVersion: string; kind: string; name: string; uid: string };

  constructor(
    message: string,
    existing: { apiVersion: string; kind: string; name: string; uid: string },
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'AlreadyOwnedError';
    this.existing = existing;
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is an {@link AlreadyOwnedError}.
 * @category Errors
 */
export function isAlreadyOwned(err: unknown): boolean {
  return hasCause(err, (c) => c instanceof AlreadyOwnedError || hasKind(c, 'AlreadyOwned'));
}
