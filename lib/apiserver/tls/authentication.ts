import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** The verified client certificate of a request: user name and groups, as kube-apiserver reads them. */
export interface ClientIdentity {
  /** Subject common name: the user. */
  readonly user: string;
  /** Subject organizations: the groups. */
  readonly groups: readonly string[];
}

/** What an {@link ApiServerOptions.authenticate} hook sees of a request. */
export interface AuthenticationRequest {
  readonly method: string;
  /** Path and query, e.g. `/api/v1/namespaces?watch=true`. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Every header as the list of its values (repeated headers such as `Impersonate-Group` kept apart). */
  readonly headersDistinct: NodeJS.Dict<string[]>;
  /** The client certificate, when one was presented and the server's CA signed it; else undefined. */
  readonly clientCertificate: ClientIdentity | undefined;
}

/** The verified client certificate of a TLS request, or undefined (plain http, none, or not trusted). */
export function clientIdentity(req: IncomingMessage): ClientIdentity | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  if (socket.authorized !== true || typeof socket.getPeerCertificate !== 'function') return undefined;
  const peer = socket.getPeerCertificate();
  const cn = peer.subject.CN;
  const o = peer.subject.O;
  const user = Array.isArray(cn) ? cn[0] : cn;
  if (user === undefined || user === '') return undefined;
  return { user, groups: o === undefined ? [] : Array.isArray(o) ? o : [o] };
}

/**
 * Whether an `Authorization` header is `Bearer <token>`, compared in constant time: both sides are hashed
 * (SHA-256) first, so neither the token's characters nor its length leak through the comparison's timing.
 */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  if (authorization === undefined) return false;
  return constantTimeEqual(authorization, `Bearer ${token}`);
}

/** Whether two strings are equal, in time that does not depend on where they differ or on their lengths. */
export function constantTimeEqual(a: string, b: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * The server's authentication rule: with none of a token, client certificates or a hook configured every
 * request passes (loopback dev server); otherwise a request passes when any configured one accepts it.
 */
export function buildAuthenticator(options: {
  token: string | undefined;
  clientCertificates: boolean;
  hook: ((request: AuthenticationRequest) => boolean) | undefined;
}): ((req: IncomingMessage) => boolean) | undefined {
  const { token, clientCertificates, hook } = options;
  if (token === undefined && !clientCertificates && hook === undefined) return undefined;
  return (req) => {
    if (token !== undefined && bearerMatches(req.headers.authorization, token)) return true;
    const identity = clientIdentity(req);
    if (clientCertificates && identity !== undefined) return true;
    return (
      hook?.({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        headersDistinct: req.headersDistinct,
        clientCertificate: identity,
      }) === true
    );
  };
}
