// The health server's own thread (see HealthServer, `probeThread: 'worker'`): it holds the listening socket
// and answers /healthz, /livez and /readyz from what the main thread publishes — a heartbeat timestamp in
// shared memory and the checks' last results — so a probe is answered while the main event loop is busy.
// Every other path (/metrics, the live view) is passed through to the main thread's loopback listener.
// Loaded as its own file by `new Worker(...)`: it imports Node's built-ins only (it runs as written, its
// types stripped, when the package's sources are run).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { queryObjects } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';

/** One check's outcome as the main thread published it: name → undefined (fine) or the reason. */
type Outcomes = [name: string, reason: string | undefined][];

/** What the main thread publishes after each run of the checks. */
interface Published {
  type: 'published';
  /** The highest evaluation request this run saw before it began. */
  seq: number;
  /** When the run began (ms, the shared clock: performance.timeOrigin + performance.now()). */
  at: number;
  ready: Outcomes;
  live: Outcomes;
}

/** What the main thread hands the worker at start. */
export interface ProbeWorkerData {
  host: string;
  port: number;
  /**
   * Two BigInt64 slots: the main loop's last heartbeat (ms on the shared clock), and 1 while the live
   * view's streams are full (0 otherwise).
   */
  heartbeat: SharedArrayBuffer;
  /** A heartbeat (or published result) older than this fails /healthz (or /readyz). */
  maxEventLoopBlockMs: number;
  /** How long a probe waits for a fresh run of the checks before answering from the last one. */
  freshWaitMs: number;
  /** The main thread's loopback listener for every other path, and the secret it expects. */
  upstream: { port: number; secret: string };
  /** The header carrying the secret, and the one carrying the client's address. */
  secretHeader: string;
  peerHeader: string;
  initial: Published;
  /** The live view's answer to a stream request while its streams are full. */
  streamRefusal: { headers: Record<string, string>; body: string };
}

/**
 * Connections closed, then this long without one opening or closing, make a flood that has passed: this
 * thread then collects its garbage once, in full (see collectAll).
 */
const FLOOD_CONNECTIONS = 256;
const FLOOD_QUIET_MS = 3_000;
/** Open connections of a quiet server (probes, a page or two). */
const FEW_CONNECTIONS = 4;

/** Nothing is ever made of this class: queryObjects counts it after a full collection (see collectAll). */
class NoInstances {}

/**
 * One full, memory-reducing garbage collection of this thread's heap. A flood of clients (2,000 refused
 * stream requests, stalled streams piped through) leaves their objects here as garbage — the heap at
 * 17–20 MiB against 9 after a collection — and this thread, idle again, allocates too little for V8 ever
 * to collect them: the process would keep that memory. `v8.queryObjects` collects all available garbage
 * before it counts (Node has no other way to ask for that without --expose-gc); this thread's heap is
 * small, so it takes milliseconds. Its one-time experimental warning is not printed.
 */
function collectAll(): void {
  if (typeof queryObjects !== 'function') return;
  const emitWarning = Object.getOwnPropertyDescriptor(process, 'emitWarning');
  process.emitWarning = () => undefined;
  try {
    queryObjects(NoInstances);
  } finally {
    if (emitWarning === undefined) Reflect.deleteProperty(process, 'emitWarning');
    else Object.defineProperty(process, 'emitWarning', emitWarning);
  }
}

// `require`, not an ES import: Node's ES facade of node:http loads its bundled undici (see util/node-http).
const { createServer, request } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

const port = parentPort;
if (port !== null) {
  const data = workerData as ProbeWorkerData;
  const heartbeat = new BigInt64Array(data.heartbeat);
  const now = (): number => performance.timeOrigin + performance.now();
  let latest: Published = data.initial;
  let requested = data.initial.seq;
  const waiters = new Set<{ seq: number; done: () => void }>();

  port.on('message', (message: Published | { type: 'close' }) => {
    if (message.type === 'close') {
      server.close(() => {
        process.exit(0);
      });
      server.closeAllConnections();
      return;
    }
    latest = message;
    for (const w of waiters) if (w.seq <= message.seq) w.done();
  });

  /** Asks the main thread to run its checks; resolves once a run that began after this call is published, or after freshWaitMs. */
  const fresh = (): Promise<void> => {
    requested += 1;
    const seq = requested;
    port.postMessage({ type: 'evaluate', seq });
    return new Promise<void>((resolve) => {
      const waiter = {
        seq,
        done: (): void => {
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.done, data.freshWaitMs);
      waiters.add(waiter);
    });
  };

  const blockedFor = (): number => Math.max(0, now() - Number(Atomics.load(heartbeat, 0)));

  const answer = async (res: ServerResponse, kind: 'ready' | 'live', verbose: boolean): Promise<void> => {
    const blocked = blockedFor();
    const bound = data.maxEventLoopBlockMs;
    if (blocked > bound) {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(
        `[-]main-loop failed: the event loop has been blocked for ${String(Math.round(blocked))} ms (bound ${String(bound)} ms)\nfailed\n`,
      );
      return;
    }
    const lines = [`[+]main-loop ok`];
    let ok = true;
    if ((kind === 'ready' ? latest.ready : latest.live).length > 0) await fresh();
    const outcomes = kind === 'ready' ? latest.ready : latest.live;
    const age = now() - latest.at;
    if (outcomes.length > 0 && age > bound) {
      ok = false;
      lines.push(`[-]checks failed: last run ${String(Math.round(age))} ms ago (bound ${String(bound)} ms)`);
    } else {
      for (const [name, reason] of outcomes) {
        if (reason === undefined) lines.push(`[+]${name} ok`);
        else {
          ok = false;
          lines.push(`[-]${name} failed: ${reason}`);
        }
      }
    }
    res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' });
    if (verbose || !ok) res.end(`${lines.join('\n')}\n${ok ? 'ok' : 'failed'}\n`);
    else res.end('ok');
  };

  /** Passes a request through to the main thread's listener, the client's address in peerHeader. */
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const headers = { ...req.headers };
    headers[data.secretHeader] = data.upstream.secret;
    headers[data.peerHeader] = req.socket.remoteAddress ?? '';
    const up = request(
      {
        host: '127.0.0.1',
        port: data.upstream.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (upRes) => {
        const out = { ...upRes.headers };
        delete out['transfer-encoding'];
        delete out['keep-alive'];
        res.writeHead(upRes.statusCode ?? 502, out);
        upRes.pipe(res);
        // The main loop cut the response short (it drops a live-view stream whose client leaves
        // DEBUG_STREAM_BUFFER_BYTES unread): cut the client's connection too, or it would stay open here
        // with what it buffered, while the main loop has already given its stream slot to the next client.
        upRes.once('close', () => {
          if (!upRes.complete) res.destroy();
        });
      },
    );
    up.on('error', (err) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`the operator's main thread did not answer: ${err.message}\n`);
      } else res.destroy();
    });
    res.on('close', () => {
      up.destroy();
    });
    req.pipe(up);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const probe =
      url.pathname === '/healthz' || url.pathname === '/livez'
        ? 'live'
        : url.pathname === '/readyz'
          ? 'ready'
          : undefined;
    if (probe === undefined) {
      // While the live view's streams are full, more stream clients are refused here: a flood of them
      // then costs this thread one short request each, not a second connection and parser on the main loop.
      if (url.pathname === '/debug/api/stream' && Atomics.load(heartbeat, 1) === 1n) {
        res.writeHead(503, data.streamRefusal.headers);
        res.end(data.streamRefusal.body);
        return;
      }
      forward(req, res);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' });
      res.end('method not allowed\n');
      return;
    }
    answer(res, probe, url.searchParams.has('verbose')).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(err instanceof Error ? err.message : String(err));
    });
  });
  // After a flood, once quiet: collect what its clients left (see collectAll); once more when the
  // connections still open then (stalled streams) have gone too.
  let open = 0;
  let closed = 0;
  let streamsLeft = false;
  let quiet: NodeJS.Timeout | undefined;
  const collectWhenQuiet = (): void => {
    quiet = setTimeout(() => {
      quiet = undefined;
      closed = 0;
      collectAll();
      streamsLeft = open > FEW_CONNECTIONS;
    }, FLOOD_QUIET_MS).unref();
  };
  server.on('connection', (socket) => {
    open += 1;
    quiet?.refresh();
    socket.once('close', () => {
      open -= 1;
      closed += 1;
      if (quiet !== undefined) quiet.refresh();
      else if (closed >= FLOOD_CONNECTIONS || (streamsLeft && open <= FEW_CONNECTIONS)) {
        streamsLeft = false;
        collectWhenQuiet();
      }
    });
  });
  server.once('error', (err: NodeJS.ErrnoException) => {
    port.postMessage({ type: 'listen-error', message: err.message, code: err.code });
  });
  server.listen(data.port, data.host, () => {
    const address = server.address() as AddressInfo;
    port.postMessage({
      type: 'listening',
      address: address.address,
      family: address.family,
      port: address.port,
    });
  });
}
