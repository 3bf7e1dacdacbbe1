import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { nodeHttp } from '../util/node-http.js';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { handleDebug, type DebugSource } from '../debug/debug-routes.js';

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
}

/**
 * `/healthz` (alive), `/readyz` (ready to do work) and `/metrics` (Prometheus text) over plain HTTP,
 * as controller-runtime's probe and metrics endpoints. `?verbose` lists each check.
 * @category Observability: logs, metrics, Events, health
 */
export class HealthServer {
  private readonly options: HealthServerOptions;
  private server: Server | undefined;
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
    const server = nodeHttp.createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(err instanceof Error ? err.message : String(err));
      });
    });
    this.server = server;
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
      server.listen(this.options.port, this.options.host, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.boundUrl = `http://${host}:${address.port}`;
    return this.boundUrl;
  }

  /** Stops listening and drops open connections, so nothing keeps the process alive. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.boundUrl = undefined;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
      server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
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
        if (this.options.debug !== undefined && handleDebug(this.options.debug, req, res, url)) return;
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
