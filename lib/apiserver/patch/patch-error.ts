/** A patch that cannot be applied; the server turns it into a Status with this code and reason. */
export class PatchError extends Error {
  constructor(
    message: string,
    readonly code: 400 | 409 | 422,
    readonly reason: 'BadRequest' | 'Conflict' | 'Invalid',
    /** The Status `details` kube's answer carries (an empty object for some), when it has any. */
    readonly details?: Record<string, never>,
  ) {
    super(message);
    this.name = 'PatchError';
  }
}

export function isPatchError(e: unknown): e is PatchError {
  return e instanceof PatchError;
}
