import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import type { Registry } from 'prom-client';
import { debugStreamsOf, handleDebug, type DebugSource } from '../debug/debug-routes.js';
import { DEFAULT_DEBUG_MAX_STREAMS, streamRefusal } from '../debug/debug-streams.js';
import { constantTimeEqual } from '../util/constant-time-equal.js';
import { nodeHttp } from '../util/node-http.js';
import type { ProbeWorkerData } from './health-probe-worker.js';
import type { Logger } from './logger.js';

/**
 * One named readiness or liveness check: returns (or resolves to) undefined when fine, or the reason it is
 * not. A check that throws, rejects or takes longer than {@link HEALTH_CHECK_TIMEOUT_MS} fails.
 * @category Observability: logs, metrics, Events, health
 */
export type HealthCheck = () => string | undefined | Promise<string | undefined>;

/**
 * How long one health check may take before it counts as failed (a probe must answer quickly).
 * @category Observability: logs, metrics, Events, health
 */
export const HEALTH_CHECK_TIMEOUT_MS = 5_000;

/**
 * Where the health server answers its probes: `'worker'` (the default) on a worker thread of its own, so
 * `/healthz` and `/readyz` answer while the main event loop is busy; `'main'` on the main event loop, as
 * any Node HTTP server (a probe then waits behind everything the process is doing).
 * @category Observability: logs, metrics, Events, health
 */
export type ProbeThread = 'worker' | 'main';

/**
 * How long the main event loop may go without turning before `/healthz` (and `/readyz`) fail with 500,
 * naming how long it has been blocked (probes on the worker thread only).
 * @category Observability: logs, metrics, Events, health
 */
export const DEFAULT_MAX_EVENT_LOOP_BLOCK_MS = 10_000;

/** How often the main loop beats and runs the checks for the worker, and how long a probe waits for a fresh run. */
const HEARTBEAT_MS = 100;
const CHECK_INTERVAL_MS = 1_000;
const FRESH_WAIT_MS = 250;
/** Restarts of a probe thread that exits unasked, within a minute, before the server gives up. */
const MAX_RESTARTS = 5;
const SECRET_HEADER = 'x-reconcilekit-probe-secret';
const PEER_HEADER = 'x-reconcilekit-probe-peer';

/** The worker thread's script, next to this module (its TypeScript source when the sources are run). */
const PROBE_WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('./health-probe-worker.ts', import.meta.url)
  : new URL('./health-probe-worker.js', import.meta.url);

/** @category Observability: logs, metrics, Events, health */
export interface HealthServerOptions {
  /** Interface to bind. Default 127.0.0.1 (DEFAULT_HEALTH_HOST), so nothing is exposed unless asked. */
  host: string;
  /** Port to bind; 0 picks a free one (tests). */
  port: number;
  /** Registry served on /metrics. */
  registry: Registry;
  /** Checks behind /readyz (e.g. cache synced, leader or standby); all must pass. Default none. */
  readinessChecks?: Record<string, HealthCheck>;
  /** Checks behind /healthz (the process is alive and not stuck). Default none: answering is alive. */
  livenessChecks?: Record<string, HealthCheck>;
  /** The live view's data: serves `/debug/` and `/debug/api/` (see docs/live-view.md). Default none. */
  debug?: DebugSource;
  /**
   * Where probes are answered (see {@link ProbeThread}). Default `'worker'`: the listening socket is on a
   * worker thread that answers `/healthz`, `/livez` and `/readyz` from the main loop's heartbeat and the
   * checks' last results, and passes `/metrics` and the live view through to the main loop.
   */
  probeThread?: ProbeThread;
  /** With `probeThread: 'worker'`: see {@link DEFAULT_MAX_EVENT_LOOP_BLOCK_MS} (the default). */
  maxEventLoopBlockMs?: number;
  /** Where a probe thread that fails is reported. Default: `console.error`. */
  logger?: Pick<Logger, 'error' | 'warn'>;
}

type Outcomes = [name: string, reason: string | undefined][];

/** The shared clock of the main thread and the probe thread (ms). */
const sharedNow = (): number => performance.timeOrigin + performance.now();

/**
 * `/healthz` (alive), `/readyz` (ready to do work) and `/metrics` (Prometheus text) over plain HTTP,
 * as controller-runtime's probe and metrics endpoints. `?verbose` lists each check.
 * @category Observability: logs, metrics, Events, health
 */
export class HealthServer {
  private readonly options: HealthServerOptions;
  private server: Server | undefined;
  private probes: ProbeWorker | undefined;
  private boundUrl: string | undefined;

  constructor(options: HealthServerOptions) {
    this.options = options;
  }

  /** The base URL once listening (`http://127.0.0.1:PORT`). */
  get url(): string | undefined {
    return this.boundUrl;
  }

  /** Binds and starts answering. Resolves with the base URL. */
  async start(signal?: AbortSignal): Promise<string> {
    if (this.boundUrl !== undefined) return this.boundUrl;
    signal?.throwIfAborted();
    if ((this.options.probeThread ?? 'worker') === 'worker') return this.startProbeThread(signal);
    const server = nodeHttp.createServer((req, res) => {
      this.respond(req, res, req.socket.remoteAddress);
    });
    this.server = server;
    await listen(server, this.options.port, this.options.host, signal);
    const address = server.address() as AddressInfo;
    this.boundUrl = baseUrl(address.address, address.family, address.port);
    return this.boundUrl;
  }

  /** Stops listening and drops open connections (and ends the probe thread), so nothing keeps the process alive. */
  async close(): Promise<void> {
    const server = this.server;
    const probes = this.probes;
    this.server = undefined;
    this.probes = undefined;
    this.boundUrl = undefined;
    if (probes !== undefined) await probes.close();
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    });
  }

  /**
   * The probe thread: the main loop serves every path on a loopback port of its own (reachable with a
   * per-server secret only), beats into shared memory every 100 ms and runs the checks every second and
   * when a probe asks; the worker binds the configured address.
   */
  private async startProbeThread(signal: AbortSignal | undefined): Promise<string> {
    const secret = randomBytes(24).toString('hex');
    const server = nodeHttp.createServer((req, res) => {
      const given = req.headers[SECRET_HEADER];
      if (typeof given !== 'string' || !constantTimeEqual(given, secret)) {
        res.writeHead(403, { 'content-type': 'text/plain' });
        res.end('forbidden\n');
        return;
      }
      const peer = req.headers[PEER_HEADER];
      delete req.headers['x-reconcilekit-probe-secret'];
      delete req.headers['x-reconcilekit-probe-peer'];
      this.respond(req, res, typeof peer === 'string' ? peer : undefined);
    });
    this.server = server;
    await listen(server, 0, '127.0.0.1', signal);
    const probes = new ProbeWorker({
      options: this.options,
      upstream: { port: (server.address() as AddressInfo).port, secret },
    });
    this.probes = probes;
    try {
      const address = await probes.start(signal);
      this.boundUrl = baseUrl(address.address, address.family, address.port);
      return this.boundUrl;
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  private respond(req: IncomingMessage, res: ServerResponse, peer: string | undefined): void {
    this.handle(req, res, peer).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(err instanceof Error ? err.message : String(err));
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse, peer: string | undefined): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' });
      res.end('method not allowed\n');
      return;
    }
    switch (url.pathname) {
      case '/healthz':
      case '/livez':
        await this.answerChecks(res, this.options.livenessChecks ?? {}, url.searchParams.has('verbose'));
        return;
      case '/readyz':
        await this.answerChecks(res, this.options.readinessChecks ?? {}, url.searchParams.has('verbose'));
        return;
      case '/metrics': {
        const body = await this.options.registry.metrics();
        res.writeHead(200, { 'content-type': this.options.registry.contentType });
        res.end(body);
        return;
      }
      default:
        if (this.options.debug !== undefined && handleDebug(this.options.debug, req, res, url, peer)) return;
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found\n');
    }
  }

  private async answerChecks(
    res: ServerResponse,
    checks: Record<string, HealthCheck>,
    verbose: boolean,
  ): Promise<void> {
    const lines: string[] = [];
    let ok = true;
    const reasons = await Promise.all(Object.values(checks).map((check) => runCheck(check)));
    for (const [i, name] of Object.keys(checks).entries()) {
      const reason = reasons[i];
      if (reason === undefined) lines.push(`[+]${name} ok`);
      else {
        ok = false;
        lines.push(`[-]${name} failed: ${reason}`);
      }
    }
    res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' });
    if (verbose || !ok)
      res.end(`${lines.join('\n')}${lines.length > 0 ? '\n' : ''}${ok ? 'ok' : 'failed'}\n`);
    else res.end('ok');
  }
}

/** Runs one check: its reason, or the error it threw, or a timeout. */
async function runCheck(check: HealthCheck): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const result = check();
    if (typeof result !== 'object') return result;
    return await Promise.race([
      result,
      new Promise<string>((resolve) => {
        timer = setTimeout(() => {
          resolve(`did not answer within ${HEALTH_CHECK_TIMEOUT_MS} ms`);
        }, HEALTH_CHECK_TIMEOUT_MS);
      }),
    ]);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every check: each one's name and reason (undefined when fine). */
async function runChecks(checks: Record<string, HealthCheck>): Promise<Outcomes> {
  const reasons = await Promise.all(Object.values(checks).map((check) => runCheck(check)));
  return Object.keys(checks).map((name, i) => [name, reasons[i]]);
}

function baseUrl(address: string, family: string, port: number): string {
  return `http://${family === 'IPv6' ? `[${address}]` : address}:${String(port)}`;
}

/** `server.listen`, rejecting on a bind error or when `signal` aborts first. */
async function listen(server: Server, port: number, host: string, signal?: AbortSignal): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      server.close();
      reject(signal?.reason instanceof Error ? signal.reason : new Error('health server start aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    server.once('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
    server.listen(port, host, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

type FromWorker =
  | { type: 'listening'; address: string; family: string; port: number }
  | { type: 'listen-error'; message: string; code?: string }
  | { type: 'evaluate'; seq: number };

/**
 * The main thread's side of the probe thread: the heartbeat, the checks' runs it publishes, and the
 * worker's life — restarted on the port it bound when it exits unasked, at most {@link MAX_RESTARTS}
 * times a minute, after which the failure is logged and probes go unanswered (so the kubelet restarts the
 * pod, as for a hung process).
 */
class ProbeWorker {
  /** [0] the main loop's last heartbeat; [1] 1 while the live view's streams are full, else 0. */
  private readonly heartbeat = new BigInt64Array(new SharedArrayBuffer(16));
  private readonly options: HealthServerOptions;
  private readonly upstream: { port: number; secret: string };
  private worker: Worker | undefined;
  private timers: NodeJS.Timeout[] = [];
  private closed = false;
  private seq = 0;
  private published: { seq: number; at: number; ready: Outcomes; live: Outcomes } = {
    seq: 0,
    at: 0,
    ready: [],
    live: [],
  };
  private running: Promise<void> | undefined;
  private again = false;
  private restarts: number[] = [];
  private boundPort: number | undefined;

  constructor(init: { options: HealthServerOptions; upstream: { port: number; secret: string } }) {
    this.options = init.options;
    this.upstream = init.upstream;
  }

  async start(signal: AbortSignal | undefined): Promise<{ address: string; family: string; port: number }> {
    this.beat();
    this.timers.push(
      setInterval(() => {
        this.beat();
      }, HEARTBEAT_MS),
      setInterval(() => {
        this.evaluate();
      }, CHECK_INTERVAL_MS),
    );
    for (const t of this.timers) t.unref();
    this.evaluate();
    await this.running;
    return this.spawn(this.options.port, signal);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const worker = this.worker;
    this.worker = undefined;
    if (worker === undefined) return;
    const exited = new Promise<void>((resolve) => {
      worker.once('exit', () => {
        resolve();
      });
    });
    worker.postMessage({ type: 'close' });
    const timer = setTimeout(() => void worker.terminate(), 1_000);
    await exited;
    clearTimeout(timer);
  }

  private beat(): void {
    Atomics.store(this.heartbeat, 0, BigInt(Math.round(sharedNow())));
    this.publishStreams();
  }

  /** Tells the worker whether the live view's streams are full, so it refuses more without the hop here. */
  private publishStreams(): void {
    const debug = this.options.debug;
    const full = debug !== undefined && debugStreamsOf(debug.history)?.full === true;
    Atomics.store(this.heartbeat, 1, full ? 1n : 0n);
  }

  /** Runs the checks (once more after the current run when asked during one) and publishes the outcome. */
  private evaluate(): void {
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    const run = async (): Promise<void> => {
      do {
        this.again = false;
        const seq = this.seq;
        const at = sharedNow();
        const [ready, live] = await Promise.all([
          runChecks(this.options.readinessChecks ?? {}),
          runChecks(this.options.livenessChecks ?? {}),
        ]);
        this.published = { seq, at, ready, live };
        this.worker?.postMessage({ type: 'published', ...this.published });
      } while (this.runAgain());
    };
    this.running = run().finally(() => {
      this.running = undefined;
    });
  }

  /** Whether a probe asked for a run while the last one ran (and the server is still open). */
  private runAgain(): boolean {
    return this.again && !this.closed;
  }

  private spawn(
    port: number,
    signal?: AbortSignal,
  ): Promise<{ address: string; family: string; port: number }> {
    const data: ProbeWorkerData = {
      host: this.options.host,
      port,
      heartbeat: this.heartbeat.buffer,
      maxEventLoopBlockMs: this.options.maxEventLoopBlockMs ?? DEFAULT_MAX_EVENT_LOOP_BLOCK_MS,
      freshWaitMs: FRESH_WAIT_MS,
      upstream: this.upstream,
      secretHeader: SECRET_HEADER,
      peerHeader: PEER_HEADER,
      initial: { type: 'published', ...this.published },
      streamRefusal: streamRefusal(DEFAULT_DEBUG_MAX_STREAMS),
    };
    const worker = new Worker(PROBE_WORKER_URL, {
      workerData: data,
      execArgv: [],
      name: 'reconcilekit-probes',
    });
    worker.unref();
    this.worker = worker;
    return new Promise((resolve, reject) => {
      let listening = false;
      const onAbort = (): void => {
        void worker.terminate();
        reject(signal?.reason instanceof Error ? signal.reason : new Error('health server start aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', (m: FromWorker) => {
        if (m.type === 'evaluate') {
          this.seq = Math.max(this.seq, m.seq);
          this.evaluate();
        } else if (m.type === 'listening') {
          listening = true;
          this.boundPort = m.port;
          signal?.removeEventListener('abort', onAbort);
          resolve(m);
        } else {
          signal?.removeEventListener('abort', onAbort);
          reject(Object.assign(new Error(m.message), m.code === undefined ? {} : { code: m.code }));
        }
      });
      worker.on('error', (err) => {
        this.log('error', 'health probe thread failed', { err });
        if (!listening) reject(err);
      });
      worker.on('exit', (code) => {
        if (this.worker !== worker) return;
        this.worker = undefined;
        if (!listening) {
          reject(new Error(`the health probe thread exited (${String(code)}) before it listened`));
          return;
        }
        if (!this.closed) this.restart(code);
      });
    });
  }

  private restart(code: number): void {
    const now = Date.now();
    this.restarts = this.restarts.filter((t) => now - t < 60_000);
    if (this.restarts.length >= MAX_RESTARTS || this.boundPort === undefined) {
      this.log(
        'error',
        `health probe thread exited (${String(code)}) ${String(MAX_RESTARTS)} times within a minute: /healthz and /readyz are no longer answered`,
        { code },
      );
      return;
    }
    this.restarts.push(now);
    this.log('warn', `health probe thread exited (${String(code)}); restarting it`, { code });
    this.spawn(this.boundPort).catch((err: unknown) => {
      this.log('error', 'health probe thread could not be restarted: /healthz and /readyz are not answered', {
        err,
      });
    });
  }

  private log(level: 'error' | 'warn', message: string, meta: Record<string, unknown>): void {
    const logger = this.options.logger;
    if (logger === undefined) console.error(message, meta);
    else logger[level](message, meta);
  }
}
