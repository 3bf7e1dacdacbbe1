/** Error codes of a request that never got an HTTP answer (server down, connection cut, DNS). */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

/**
 * Reason of an {@link ApiError} for a request that got no HTTP answer (`code` is 0).
 * @category Kubernetes client
 */
export const CONNECTION_ERROR_REASON = 'ConnectionError';

/**
 * What {@link ApiError}'s constructor takes.
 * @category Kubernetes client
 */
export interface ApiErrorInit {
  /** HTTP status code; 0 when the request got no answer. */
  code: number;
  /** Kubernetes `Status.reason` (e.g. `NotFound`, `Conflict`), or {@link CONNECTION_ERROR_REASON}. */
  reason: string;
  /** Human-readable message (the `Status.message` when there is one). */
  message: string;
  /** The decoded `Status` object of the response, when the server sent one. */
  status?: Record<string, unknown>;
  /** `Retry-After` (header or `details.retryAfterSeconds`) of a 429/5xx answer. */
  retryAfterSeconds?: number;
  /** The underlying error (socket error, parse error). */
  cause?: unknown;
}

/**
 * A failed request to the Kubernetes API: an HTTP error with its decoded `Status`, or a connection error
 * (`code` 0). Test it with the predicates below rather than comparing codes.
 * @category Kubernetes client
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: number;
  readonly reason: string;
  readonly status?: Record<string, unknown>;
  readonly retryAfterSeconds?: number;

  constructor(init: ApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.reason = init.reason;
    if (init.status !== undefined) this.status = init.status;
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/**
 * The server's `Retry-After` (ms) carried by `e` or an error on its cause chain (429, or a 5xx that set
 * it); undefined when none did. A retry sooner than this only meets the same answer.
 */
export function retryAfterMs(e: unknown): number | undefined {
  let current: unknown = e;
  for (let depth = 0; depth < 8 && current !== null && typeof current === 'object'; depth++) {
    const seconds = (current as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0) return seconds * 1000;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * True for an {@link ApiError}.
 * @category Kubernetes client
 */
export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/** HTTP status of `e`: ApiError `code`, or client-node's `ApiException.code`; undefined otherwise. */
function httpCode(e: unknown): number | undefined {
  if (e instanceof ApiError) return e.code;
  if (typeof e === 'object' && e !== null) {
    const code = (e as { code?: unknown; statusCode?: unknown }).code;
    if (typeof code === 'number') return code;
    const statusCode = (e as { statusCode?: unknown }).statusCode;
    if (typeof statusCode === 'number') return statusCode;
  }
  return undefined;
}

/**
 * 404: the object (or its kind) does not exist. Also recognises client-node's `ApiException`.
 * @category Kubernetes client
 */
export function isNotFound(e: unknown): boolean {
  return httpCode(e) === 404;
}

/**
 * 409 Conflict from a stale resourceVersion (not AlreadyExists).
 * @category Kubernetes client
 */
export function isConflict(e: unknown): boolean {
  return httpCode(e) === 409 && !(e instanceof ApiError && e.reason === 'AlreadyExists');
}

/**
 * 409 AlreadyExists from a create.
 * @category Kubernetes client
 */
export function isAlreadyExists(e: unknown): boolean {
  return httpCode(e) === 409 && (!(e instanceof ApiError) || e.reason === 'AlreadyExists');
}

/**
 * 410 Gone / Expired: a resourceVersion or continue token too old; relist.
 * @category Kubernetes client
 */
export function isGone(e: unknown): boolean {
  return httpCode(e) === 410;
}

/**
 * 403: RBAC denies the request.
 * @category Kubernetes client
 */
export function isForbidden(e: unknown): boolean {
  return httpCode(e) === 403;
}

/**
 * 401: credentials missing or rejected.
 * @category Kubernetes client
 */
export function isUnauthorized(e: unknown): boolean {
  return httpCode(e) === 401;
}

/**
 * 429: the server throttles; honour `retryAfterSeconds`.
 * @category Kubernetes client
 */
export function isTooManyRequests(e: unknown): boolean {
  return httpCode(e) === 429;
}

/**
 * 5xx: the server failed; retry with backoff.
 * @category Kubernetes client
 */
export function isServerError(e: unknown): boolean {
  const code = httpCode(e);
  return code !== undefined && code >= 500 && code <= 599;
}

/**
 * No HTTP answer at all: refused, reset, timed out, unresolvable.
 * @category Kubernetes client
 */
export function isConnectionError(e: unknown): boolean {
  if (e instanceof ApiError) return e.code === 0;
  if (typeof e === 'object' && e !== null) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return true;
    const cause = (e as { cause?: unknown }).cause;
    if (cause !== undefined && cause !== e) return isConnectionError(cause);
  }
  return false;
}

/** Wraps a socket-level error as an {@link ApiError} with code 0. */
export function connectionError(cause: unknown, what: string): ApiError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new ApiError({
    code: 0,
    reason: CONNECTION_ERROR_REASON,
    message: `${what}: ${detail}`,
    cause,
  });
}
