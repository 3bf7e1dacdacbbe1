import type { IncomingMessage, ServerResponse } from 'node:http';
import { constantTimeEqual } from '../util/constant-time-equal.js';
import { DebugStreams } from './debug-streams.js';
import type { HistoryRecorder } from './history-recorder.js';
import type { PassTrigger } from './pass-trigger.js';
import { LIVE_VIEW_HTML } from './live-view-page.js';

/** One controller's live state for the page. @category Observability: logs, metrics, Events, health */
export interface DebugControllerState {
  name: string;
  synced: boolean;
  leading: boolean;
  ready: boolean;
  workersBusy: number;
  workers: number;
  queueDepth: number;
  /** Age of the oldest waiting key, ms (0 when none). */
  oldestWaitingMs: number;
  /** Keys a worker runs now. */
  running?: string[];
  /** Order of the work queue: priorities with aging, or FIFO. */
  queueOrder?: 'priority' | 'fifo';
  /** Queued keys per priority, highest first (higher runs first; 0 user changes, -100 background work). */
  depthByPriority?: { priority: number; depth: number }[];
  /**
   * Keys enqueued and not started yet (at most DEBUG_QUEUED_KEYS), with why they were enqueued and the
   * priority they wait with.
   */
  queued?: { key: string; trigger: PassTrigger; priority?: number }[];
  /**
   * A sharded controller's part on this replica: its shard id (empty between terms), the objects it
   * watches, whether it is the ring's sharder, and (on the sharder) objects per shard ('' = unassigned).
   */
  shard?: { id: string; owned: number; sharder: boolean; assignment?: Record<string, number> };
}

/** Waiting keys listed per controller. */
export const DEBUG_QUEUED_KEYS = 200;

/** What the routes read. */
export interface DebugSource {
  history: HistoryRecorder;
  controllers: () => DebugControllerState[];
  /** Bearer token admitting non-loopback clients (whatever Host they name); undefined = loopback only. */
  token?: string;
  /**
   * Host names (without port) a tokenless request may name in `Host` and `Origin` besides the loopback
   * names (`localhost`, `*.localhost`, `127.0.0.1`, `[::1]`). Default none: a page on another name that
   * resolves to 127.0.0.1 (DNS rebinding) cannot read the view.
   */
  allowedHosts?: readonly string[];
}

const OBJECTS_LIMIT = 500;

function loopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/** Whether a host name (no port) names this machine only. */
function loopbackName(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/** The host name of a `Host` header value (`name:port`, `[v6]:port`), lower-cased, without the port. */
function hostName(value: string): string {
  const host = value.trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']') < 0 ? undefined : host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

/**
 * Why `req` may not see the live view, or undefined when it may: a request with the bearer token may; a
 * tokenless one must come from loopback, name a loopback host (or an allowed one) in `Host`, and send no
 * `Origin` of another host — a page elsewhere that resolves its name to 127.0.0.1 (DNS rebinding) names
 * its own host there. `peer` is the client's address (the socket's, unless a proxy of ours names it).
 */
export function debugRefusal(
  req: IncomingMessage,
  source: Pick<DebugSource, 'token' | 'allowedHosts'>,
  peer: string | undefined = req.socket.remoteAddress,
): string | undefined {
  const { token } = source;
  const auth = req.headers.authorization;
  if (token !== undefined && auth !== undefined && constantTimeEqual(auth, `Bearer ${token}`))
    return undefined;
  if (!loopback(peer)) {
    return 'the live view answers loopback clients, or clients sending its bearer token';
  }
  const allowed = (name: string): boolean => loopbackName(name) || (source.allowedHosts ?? []).includes(name);
  const host = hostName(req.headers.host ?? '');
  if (!allowed(host)) {
    return `Host "${host}" is not a loopback name: open the live view on localhost or 127.0.0.1, or list the name in debugPage.allowedHosts`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let originHost: string;
    try {
      originHost = new URL(origin).hostname.toLowerCase().replace(/^\[|\]$/g, '');
    } catch {
      return `Origin "${origin}" is not a URL`;
    }
    if (!allowed(originHost)) return `requests from pages on "${originHost}" are refused (Origin)`;
  }
  return undefined;
}

/** Whether `req` may see the page (see {@link debugRefusal}). */
export function debugAllowed(req: IncomingMessage, token: string | undefined): boolean {
  return debugRefusal(req, token === undefined ? {} : { token }) === undefined;
}

/** The stream clients of each history (a history shared by an Operator's controllers has one set). */
const streams = new WeakMap<HistoryRecorder, DebugStreams>();

/** The live view's open streams on `history` (undefined before the first). */
export function debugStreamsOf(history: HistoryRecorder): DebugStreams | undefined {
  return streams.get(history);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * Answers `/debug/...`; returns false for other paths. `/debug/` the page, `/debug/api/controllers`,
 * `/debug/api/objects?search=`, `/debug/api/object?controller=&key=`, `/debug/api/events` (recent
 * Events, newest first), `/debug/api/stream` (SSE). `peer` as in {@link debugRefusal}.
 */
export function handleDebug(
  source: DebugSource,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  peer: string | undefined = req.socket.remoteAddress,
): boolean {
  if (url.pathname !== '/debug' && !url.pathname.startsWith('/debug/')) return false;
  const refusal = debugRefusal(req, source, peer);
  if (refusal !== undefined) {
    json(res, 403, { error: refusal });
    return true;
  }
  source.history.viewed();
  switch (url.pathname) {
    case '/debug':
    case '/debug/':
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy':
          "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'",
        'cache-control': 'no-store',
      });
      res.end(LIVE_VIEW_HTML);
      return true;
    case '/debug/api/controllers':
      json(res, 200, { controllers: source.controllers() });
      return true;
    case '/debug/api/objects': {
      const search = url.searchParams.get('search') ?? '';
      json(res, 200, {
        total: source.history.size,
        matched: source.history.count(search),
        objects: source.history.objects(search, OBJECTS_LIMIT),
      });
      return true;
    }
    case '/debug/api/events':
      json(res, 200, { events: source.history.events() });
      return true;
    case '/debug/api/object': {
      const h = source.history.history(
        url.searchParams.get('controller') ?? '',
        url.searchParams.get('key') ?? '',
      );
      if (h === undefined) json(res, 404, { error: 'no history for that controller and key' });
      else json(res, 200, h);
      return true;
    }
    case '/debug/api/stream': {
      let set = streams.get(source.history);
      if (set === undefined) {
        set = new DebugStreams(source.history);
        streams.set(source.history, set);
      }
      set.open(req, res);
      return true;
    }
    default:
      json(res, 404, { error: 'not found' });
      return true;
  }
}
