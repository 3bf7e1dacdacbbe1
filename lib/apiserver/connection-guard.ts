import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Who may hold the server's connections. kube-apiserver has no connection cap (its in-flight limits
 * answer 429 instead); a Node process does have one — file descriptors — so this server keeps a cap, but
 * reaching it never locks out a client that authenticates:
 *
 * - A connection is **unauthenticated** until one of its requests passes authentication (a public probe
 *   such as `/healthz` does not count). At most `maxUnauthenticated` of them are held: a new connection
 *   past that closes the unauthenticated connection idle the longest (one with no request being
 *   answered, or one still sending its first request's headers), else the least recently active one.
 * - Past `maxTotal` a new connection closes an unauthenticated connection the same way, else the
 *   authenticated connection idle the longest; when every connection is an authenticated busy one
 *   (watches, requests being answered), the new one is refused.
 *
 * So a client holding thousands of connections without credentials — polling a public probe or trickling
 * a body — holds only the unauthenticated share, and every new connection still gets its chance to
 * authenticate. Connections are keyed by remote address and port, the same for a TLS socket and the TCP
 * socket under it.
 */
export class ConnectionGuard {
  /** Every tracked connection, least recently active first (re-inserted when it becomes active). */
  private readonly connections = new Map<string, TrackedConnection>();
  private unauthenticated = 0;
  private readonly maxTotal: number;
  private readonly maxUnauthenticated: number;

  constructor(options: { maxTotal: number; maxUnauthenticated: number }) {
    this.maxTotal = Math.max(1, options.maxTotal);
    this.maxUnauthenticated = Math.max(1, Math.min(options.maxUnauthenticated, this.maxTotal));
  }

  /** Connections held now. */
  get size(): number {
    return this.connections.size;
  }

  /** Connections held that have not authenticated. */
  get unauthenticatedSize(): number {
    return this.unauthenticated;
  }

  /** A new TCP connection: makes room for it (closing idle ones) or refuses it. */
  accept(socket: Socket): void {
    const key = connectionKey(socket);
    if (key === undefined) {
      socket.destroy();
      return;
    }
    const stale = this.connections.get(key);
    if (stale !== undefined) this.close([key, stale]); // its port is reused: the old socket is gone
    if (this.unauthenticated >= this.maxUnauthenticated) this.evict(true);
    if (this.connections.size >= this.maxTotal && !this.evict(false)) {
      socket.destroy();
      return;
    }
    const tracked: TrackedConnection = { socket, authenticated: false, busy: 0 };
    this.connections.set(key, tracked);
    this.unauthenticated += 1;
    socket.once('close', () => {
      if (this.connections.get(key) !== tracked) return;
      this.connections.delete(key);
      if (!tracked.authenticated) this.unauthenticated -= 1;
    });
  }

  /** A request on a connection begins; ends (for idleness) when its response closes. */
  requestStarted(req: IncomingMessage, res: ServerResponse): void {
    const key = connectionKey(req.socket);
    const tracked = key === undefined ? undefined : this.connections.get(key);
    if (key === undefined || tracked === undefined) return;
    tracked.busy += 1;
    this.touch(key, tracked);
    res.once('close', () => {
      tracked.busy -= 1;
      if (this.connections.get(key) === tracked) this.touch(key, tracked);
    });
  }

  /** A request on this connection passed authentication: the connection no longer counts as unauthenticated. */
  authenticated(req: IncomingMessage): void {
    const key = connectionKey(req.socket);
    const tracked = key === undefined ? undefined : this.connections.get(key);
    if (tracked === undefined || tracked.authenticated) return;
    tracked.authenticated = true;
    this.unauthenticated -= 1;
  }

  /**
   * Closes one connection to make room, in this order: the unauthenticated connection idle the longest;
   * the least recently active unauthenticated one; unless `unauthenticatedOnly`, the authenticated
   * connection idle the longest. Whether one was closed.
   */
  private evict(unauthenticatedOnly: boolean): boolean {
    let busyUnauthenticated: [string, TrackedConnection] | undefined;
    let idleAuthenticated: [string, TrackedConnection] | undefined;
    for (const entry of this.connections) {
      const tracked = entry[1];
      if (!tracked.authenticated) {
        if (tracked.busy === 0) return this.close(entry);
        busyUnauthenticated ??= entry;
      } else if (tracked.busy === 0) idleAuthenticated ??= entry;
    }
    const victim = busyUnauthenticated ?? (unauthenticatedOnly ? undefined : idleAuthenticated);
    return victim === undefined ? false : this.close(victim);
  }

  private close([key, tracked]: [string, TrackedConnection]): boolean {
    this.connections.delete(key);
    if (!tracked.authenticated) this.unauthenticated -= 1;
    tracked.socket.destroy();
    return true;
  }

  private touch(key: string, tracked: TrackedConnection): void {
    this.connections.delete(key);
    this.connections.set(key, tracked);
  }
}

interface TrackedConnection {
  socket: Socket;
  authenticated: boolean;
  /** Requests on it whose response has not closed yet (a watch stays busy while it streams). */
  busy: number;
}

function connectionKey(socket: Socket): string | undefined {
  const { remoteAddress, remotePort } = socket;
  if (remoteAddress === undefined || remotePort === undefined) return undefined;
  return `${remoteAddress}|${String(remotePort)}`;
}
