import type { IncomingMessage, ServerResponse } from 'node:http';
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
  /** Keys enqueued and not started yet (at most DEBUG_QUEUED_KEYS), with why they were enqueued. */
  queued?: { key: string; trigger: PassTrigger }[];
}

/** Waiting keys listed per controller. */
export const DEBUG_QUEUED_KEYS = 200;

/** What the routes read. */
export interface DebugSource {
  history: HistoryRecorder;
  controllers: () => DebugControllerState[];
  /** Bearer token admitting non-loopback clients; undefined = loopback only. */
  token?: string;
}

const OBJECTS_LIMIT = 500;

function loopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/** Whether `req` may see the page: a loopback client, or one with the bearer token. */
export function debugAllowed(req: IncomingMessage, token: string | undefined): boolean {
  if (token !== undefined && req.headers.authorization === `Bearer ${token}`) return true;
  return loopback(req.socket.remoteAddress);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * Answers `/debug/...`; returns false for other paths. `/debug/` the page, `/debug/api/controllers`,
 * `/debug/api/objects?search=`, `/debug/api/object?controller=&key=`, `/debug/api/events` (recent
 * Events, newest first), `/debug/api/stream` (SSE).
 */
export function handleDebug(
  source: DebugSource,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): boolean {
  if (url.pathname !== '/debug' && !url.pathname.startsWith('/debug/')) return false;
  if (!debugAllowed(req, source.token)) {
    json(res, 403, { error: 'the live view answers loopback clients, or clients sending its bearer token' });
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
    case '/debug/api/stream':
      stream(source, req, res);
      return true;
    default:
      json(res, 404, { error: 'not found' });
      return true;
  }
}

/** Server-sent events: one `pass` event per recorded pass; a slow or gone client is dropped, never waited on. */
function stream(source: DebugSource, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  res.write(': live view\n\n');
  let closed = false;
  const unsubscribe = source.history.subscribe((summary) => {
    if (closed) return;
    // Backpressure: a client that does not read loses events (it re-reads the table on reconnect).
    if (res.writableLength > 1 << 20) return;
    res.write(`event: pass\ndata: ${JSON.stringify(summary)}\n\n`);
  });
  const close = (): void => {
    if (closed) return;
    closed = true;
    unsubscribe();
  };
  req.on('close', close);
  res.on('close', close);
  res.on('error', close);
}
