import type { ServerOptions } from 'node:http';

/**
 * Open connections the server holds (file descriptors are finite). Room for a busy test suite and
 * thousands of watches. Past it a new connection closes the one idle the longest; only when every
 * connection is busy is the new one refused.
 */
export const DEFAULT_MAX_CONNECTIONS = 4096;
/** Time a client has to send the complete request headers (slowloris); kube-apiserver's Go default is similar. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Time a client has to send the complete request, body included (a 3 MiB body needs far less on loopback). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** How often the header/request timeouts are checked (Node's default, 30 s, lets slow clients linger). */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1000;

/** Connection limits of the embedded server. Watches are not bounded by these timeouts (they are responses). */
export interface ServerLimitOptions {
  /** Simultaneous connections (idle ones are closed to make room); default DEFAULT_MAX_CONNECTIONS. */
  maxConnections?: number;
  /**
   * Simultaneous connections not yet authenticated; past it a new connection closes the unauthenticated
   * one idle the longest. Default maxConnections: unauthenticated connections are always the first closed
   * to make room, and below the cap none is closed (a lower value reserves room for authenticated ones,
   * at the price of closing — and a reconnecting client's churn — sooner).
   */
  maxUnauthenticatedConnections?: number;
  /**
   * Reads (get, list) answered at once before 429 with Retry-After (watches and probes not counted,
   * `system:masters` never refused); default DEFAULT_MAX_REQUESTS_IN_FLIGHT (kube's 400). 0: no limit.
   */
  maxRequestsInFlight?: number;
  /** Writes answered at once before 429, likewise; default DEFAULT_MAX_MUTATING_REQUESTS_IN_FLIGHT (kube's 200). */
  maxMutatingRequestsInFlight?: number;
  /** Time to receive a request's headers before 408; default DEFAULT_HEADERS_TIMEOUT_MS. */
  headersTimeoutMs?: number;
  /** Time to receive a whole request (headers and body) before 408; default DEFAULT_REQUEST_TIMEOUT_MS. */
  requestTimeoutMs?: number;
}

/** The `http.createServer` options for these limits (maxConnections is set on the server itself). */
export function serverLimits(options: ServerLimitOptions): ServerOptions {
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout);
  return {
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.min(CONNECTIONS_CHECKING_INTERVAL_MS, headersTimeout),
  };
}
