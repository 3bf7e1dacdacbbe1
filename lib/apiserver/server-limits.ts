import type { ServerOptions } from 'node:http';

/**
 * Open connections the server accepts; more are refused at accept. Room for a busy test suite and
 * thousands of watches, while a flood of idle or slowloris connections cannot exhaust file descriptors.
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
  /** Simultaneous connections; default DEFAULT_MAX_CONNECTIONS. */
  maxConnections?: number;
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
