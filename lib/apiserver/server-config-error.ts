/**
 * `startApiServer` was given options it refuses to start with (an empty token, an unauthenticated server
 * on a non-loopback interface); the message says what to change.
 */
export class ApiServerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApiServerConfigError';
  }
}

/** Whether `e` is an {@link ApiServerConfigError}. */
export function isApiServerConfigError(e: unknown): e is ApiServerConfigError {
  return e instanceof ApiServerConfigError;
}

/** Whether `host` names only this machine (a loopback address or `localhost`). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h)
  );
}
