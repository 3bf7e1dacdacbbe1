/**
 * The operator's webhook server: HTTPS on its own port, one path per handler, AdmissionReview and
 * ConversionReview v1 in and out.
 *
 * Guarantees: every review gets a review back — a malformed body, a body over {@link
 * DEFAULT_MAX_REVIEW_BYTES}, a handler that throws or returns garbage all become a denied
 * `AdmissionResponse` (or a `Failure` ConversionReview) that says what went wrong, and the server keeps
 * serving. A handler's `AbortSignal` fires at the API server's deadline (the `timeout` query parameter
 * kube-apiserver sends) and when the server stops. {@link WebhookServer.setCertificate} swaps the serving
 * certificate for new connections while requests on open ones finish: rotation drops nothing.
 */
import type { Server } from 'node:https';
import { nodeHttps } from '../util/node-http.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from '../observability/logger.js';
import { silentLogger } from '../observability/logger-silent.js';
import { admissionReviewOf } from './admission-review.js';
import { conversionReviewOf } from './conversion-review.js';
import type { WebhookHandler } from './webhook-handler.js';

/** Largest review body read: two objects at etcd's ~1.5 MiB limit plus the envelope. */
export const DEFAULT_MAX_REVIEW_BYTES = 4 * 1024 * 1024;
/** Port the webhook server binds by default (controller-runtime's and kubebuilder's 9443). */
export const DEFAULT_WEBHOOK_PORT = 9443;
/** Interface bound by default: all, since the API server reaches the webhook through its Service. */
export const DEFAULT_WEBHOOK_HOST = '0.0.0.0';
/** A handler's deadline when the request names none (kube-apiserver always sends one). */
export const DEFAULT_HANDLER_TIMEOUT_MS = 10_000;

/** A serving certificate and its key, PEM. */
export interface ServingCertificate {
  cert: string;
  key: string;
}

/** Options of {@link WebhookServer}. */
export interface WebhookServerOptions {
  /** The handlers, each on its own path. */
  handlers: readonly WebhookHandler[];
  /** Serving certificate and key (PEM); replace later with {@link WebhookServer.setCertificate}. */
  certificate: ServingCertificate;
  /** Default {@link DEFAULT_WEBHOOK_PORT}; 0 picks a free port. */
  port?: number;
  /** Default {@link DEFAULT_WEBHOOK_HOST}. */
  host?: string;
  /** Default {@link DEFAULT_MAX_REVIEW_BYTES}. */
  maxReviewBytes?: number;
  /** Default silent. */
  logger?: Logger;
}

/** A handler path collides or is malformed. */
export class WebhookConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookConfigError';
  }
}

/** True for a {@link WebhookConfigError}. */
export function isWebhookConfigError(e: unknown): e is WebhookConfigError {
  return e instanceof WebhookConfigError;
}

/** Parses a Go duration as kube-apiserver writes `?timeout=` (`10s`, `1m0s`, `500ms`); undefined if not one. */
export function parseGoDuration(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/gy;
  const unit: Record<string, number> = {
    h: 3_600_000,
    m: 60_000,
    s: 1000,
    ms: 1,
    us: 1e-3,
    µs: 1e-3,
    ns: 1e-6,
  };
  let total = 0;
  let matched = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * (unit[m[2] ?? 's'] ?? 1000);
    matched = re.lastIndex;
  }
  return matched === text.length && matched > 0 ? total : undefined;
}

/** The request uid in the first bytes of a review kube-apiserver wrote (`request.uid` comes first). */
function uidIn(head: Buffer): string {
  const match = /"request"\s*:\s*\{\s*"uid"\s*:\s*"([^"\\]{1,128})"/.exec(head.toString('utf8'));
  return match?.[1] ?? '';
}

/** The HTTPS server answering the handlers' reviews. */
export class WebhookServer {
  private readonly handlers = new Map<string, WebhookHandler>();
  private readonly options: WebhookServerOptions;
  private readonly logger: Logger;
  private readonly maxBytes: number;
  private server: Server | undefined;
  private boundPort: number | undefined;
  private readonly stopping = new AbortController();
  private readonly sockets = new Set<Socket>();
  private inFlight = 0;
  private idle: (() => void) | undefined;
  private certificate: ServingCertificate;

  constructor(options: WebhookServerOptions) {
    this.options = options;
    this.logger = options.logger ?? silentLogger();
    this.maxBytes = options.maxReviewBytes ?? DEFAULT_MAX_REVIEW_BYTES;
    this.certificate = options.certificate;
    for (const handler of options.handlers) {
      if (!handler.path.startsWith('/')) {
        throw new WebhookConfigError(`webhook path must start with "/", got ${JSON.stringify(handler.path)}`);
      }
      if (this.handlers.has(handler.path)) {
        throw new WebhookConfigError(
          `two webhook handlers on path ${handler.path}: give one a distinct path`,
        );
      }
      this.handlers.set(handler.path, handler);
    }
  }

  /** The handlers served, in the order given. */
  get handlerList(): readonly WebhookHandler[] {
    return this.options.handlers;
  }

  /** The port bound, once started. */
  get port(): number | undefined {
    return this.boundPort;
  }

  /** `https://<host>:<port>` once started (`127.0.0.1` when bound to all interfaces). */
  get url(): string | undefined {
    if (this.boundPort === undefined) return undefined;
    const host = this.options.host ?? DEFAULT_WEBHOOK_HOST;
    const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    return `https://${shown.includes(':') ? `[${shown}]` : shown}:${this.boundPort}`;
  }

  /** The certificate currently served. */
  get servingCertificate(): ServingCertificate {
    return this.certificate;
  }

  /** Undefined when serving, else why not (for `/readyz`). */
  get notReadyReason(): string | undefined {
    if (this.server === undefined) return 'webhook server not started';
    if (this.stopping.signal.aborted) return 'webhook server stopping';
    return this.server.listening ? undefined : 'webhook server not listening';
  }

  /** Starts listening; resolves with the URL. */
  async start(signal?: AbortSignal): Promise<string> {
    if (this.server !== undefined) return this.url ?? '';
    signal?.throwIfAborted();
    const server = nodeHttps.createServer(
      { cert: this.certificate.cert, key: this.certificate.key },
      (req, res) => {
        this.handle(req, res);
      },
    );
    server.on('secureConnection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // A TLS handshake that fails (a client that does not trust the CA) is the client's problem: log it.
    server.on('tlsClientError', (err) => {
      this.logger.debug('webhook TLS handshake failed', { error: err.message });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(
        this.options.port ?? DEFAULT_WEBHOOK_PORT,
        this.options.host ?? DEFAULT_WEBHOOK_HOST,
        () => {
          server.off('error', reject);
          resolve();
        },
      );
    });
    this.boundPort = (server.address() as AddressInfo).port;
    this.logger.info('webhook server listening', {
      url: this.url,
      paths: [...this.handlers.keys()],
    });
    return this.url ?? '';
  }

  /**
   * Serves `certificate` from the next TLS handshake on; connections already open keep theirs and their
   * requests finish. Throws if the PEMs do not form a usable certificate and key (the old one stays).
   */
  setCertificate(certificate: ServingCertificate): void {
    this.server?.setSecureContext({ cert: certificate.cert, key: certificate.key });
    this.certificate = certificate;
  }

  /** Stops accepting, lets requests in flight finish (at most `graceMs`), then closes every connection. */
  async stop(graceMs = 5_000): Promise<void> {
    const server = this.server;
    if (server === undefined || this.stopping.signal.aborted) return;
    server.close();
    server.closeIdleConnections();
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        timer.unref();
        this.idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.stopping.abort(new Error('webhook server stopped'));
    for (const socket of this.sockets) socket.destroy();
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'https://webhook');
    const handler = this.handlers.get(url.pathname);
    if (handler === undefined) {
      req.resume();
      sendJson(res, 404, { message: `no webhook handler on path ${url.pathname}` });
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      sendJson(res, 405, { message: `webhooks answer POST only, got ${req.method ?? ''}` });
      return;
    }
    this.inFlight++;
    this.serve(handler, req, res, url)
      .catch((e: unknown) => {
        this.logger.error('webhook request failed', { path: handler.path, error: String(e) });
        if (!res.headersSent) sendJson(res, 500, { message: 'webhook server error' });
        else res.destroy();
      })
      .finally(() => {
        this.inFlight--;
        if (this.inFlight === 0) this.idle?.();
      });
  }

  private async serve(handler: WebhookHandler, req: IncomingMessage, res: ServerResponse, url: URL) {
    const body = await readLimited(req, this.maxBytes);
    if (body.tooLarge) {
      const message = `the review is larger than the webhook server's limit of ${this.maxBytes} bytes`;
      res.setHeader('Connection', 'close');
      sendJson(res, 200, failureReview(handler, uidIn(body.head), 413, message, 'RequestEntityTooLarge'));
      return;
    }
    let decoded: unknown;
    try {
      decoded = JSON.parse(body.data.toString('utf8'));
    } catch (e) {
      const message = `malformed review: the body is not JSON (${e instanceof Error ? e.message : String(e)})`;
      sendJson(res, 200, failureReview(handler, uidIn(body.data), 400, message, 'BadRequest'));
      return;
    }
    const timeoutMs = parseGoDuration(url.searchParams.get('timeout') ?? '') ?? DEFAULT_HANDLER_TIMEOUT_MS;
    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(timeoutMs)]);
    const started = performance.now();
    const answer = await handler.review(decoded, signal);
    if (this.logger.isLevelEnabled?.('debug') !== false) {
      this.logger.debug('webhook review answered', {
        path: handler.path,
        ms: Math.round((performance.now() - started) * 100) / 100,
      });
    }
    sendJson(res, 200, answer);
  }
}

function failureReview(handler: WebhookHandler, uid: string, code: number, message: string, reason: string) {
  if (handler.kind === 'conversion') {
    return conversionReviewOf({ uid, convertedObjects: [], result: { status: 'Failure', message } });
  }
  return admissionReviewOf({ uid, allowed: false, status: { status: 'Failure', code, message, reason } });
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** Reads the body up to `limit` bytes; past it keeps only the first KiB (for the uid) and drains the rest. */
function readLimited(
  req: IncomingMessage,
  limit: number,
): Promise<{ tooLarge: false; data: Buffer } | { tooLarge: true; head: Buffer }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let head: Buffer | undefined;
    const declared = Number(req.headers['content-length'] ?? 'NaN');
    const over = Number.isFinite(declared) && declared > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (head === undefined && (over || size > limit)) {
        head = Buffer.concat([...chunks, chunk]).subarray(0, 1024);
        chunks.length = 0;
      }
      if (head === undefined) chunks.push(chunk);
    });
    req.on('end', () => {
      resolve(
        head === undefined ? { tooLarge: false, data: Buffer.concat(chunks) } : { tooLarge: true, head },
      );
    });
    req.on('error', reject);
  });
}
