import http from 'node:http';
import https from 'node:https';
import { bufferFromFileOrString, type KubeConfig } from '@kubernetes/client-node';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { ApiError, connectionError } from './api-error.js';

/** Default `User-Agent` of reconcilekit's requests. */
export const DEFAULT_USER_AGENT = 'reconcilekit';

/** Idle sockets kept per host by the shared agent. Default 32: enough for many workers, bounded. */
export const DEFAULT_MAX_FREE_SOCKETS = 32;

/** One HTTP request to the API server. */
export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the server URL, e.g. `/api/v1/namespaces/default/configmaps`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Request body; serialised with JSON.stringify. */
  body?: unknown;
  /** Content type of the body. Default: `application/json`. */
  contentType?: string;
  signal?: AbortSignal;
}

/** What {@link KubeTransport}'s constructor takes. */
export interface KubeTransportOptions {
  /** Source of the server URL, TLS material and credentials. */
  kubeConfig: KubeConfig;
  /** Agent for every non-watch request. Default: one keep-alive agent built from the kubeconfig's TLS. */
  agent?: http.Agent | https.Agent;
  /** `User-Agent` header. Default: {@link DEFAULT_USER_AGENT}. */
  userAgent?: string;
}

type TlsOptions = Pick<https.AgentOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'servername'>;

/**
 * The HTTP layer under {@link ObjectClient}: the server URL, one shared keep-alive agent for every
 * request, a separate connection per watch, and the kubeconfig's credentials as headers.
 *
 * Why: client-node 1.4 builds a fresh `https.Agent` for every request (`applySecurityAuthentication` →
 * `createAgent`), so no connection is ever reused and each call pays TCP (and TLS) setup. See
 * docs/http-client.md.
 */
export class KubeTransport {
  readonly server: URL;
  readonly kubeConfig: KubeConfig;
  private readonly userAgent: string;
  private readonly tls: TlsOptions;
  private readonly ownsAgent: boolean;
  private agentValue: http.Agent | undefined;
  private readonly staticAuth: boolean;
  private cachedHeaders: Record<string, string> | undefined;

  constructor(options: KubeTransportOptions) {
    const kc = options.kubeConfig;
    const cluster = kc.getCurrentCluster();
    if (cluster === null) {
      throw new InvalidConfigError(
        'kubeConfig has no current cluster: set current-context in the kubeconfig',
      );
    }
    if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify) {
      throw new InvalidConfigError(
        `plain http server ${cluster.server} needs insecure-skip-tls-verify: true on its kubeconfig cluster`,
      );
    }
    this.kubeConfig = kc;
    this.server = new URL(cluster.server);
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    const user = kc.getCurrentUser();
    this.tls = {};
    const ca = bufferFromFileOrString(cluster.caFile, cluster.caData);
    if (ca !== null) this.tls.ca = ca;
    const cert = bufferFromFileOrString(user?.certFile, user?.certData);
    if (cert !== null) this.tls.cert = cert;
    const key = bufferFromFileOrString(user?.keyFile, user?.keyData);
    if (key !== null) this.tls.key = key;
    if (cluster.skipTLSVerify) this.tls.rejectUnauthorized = false;
    if (cluster.tlsServerName !== undefined) this.tls.servername = cluster.tlsServerName;
    // Tokens from exec plugins and auth providers expire; everything else can be computed once.
    this.staticAuth = user?.exec === undefined && user?.authProvider === undefined;
    this.ownsAgent = options.agent === undefined && cluster.proxyUrl === undefined;
    this.agentValue = options.agent ?? (this.ownsAgent ? this.createAgent(true) : undefined);
  }

  private get isHttps(): boolean {
    return this.server.protocol === 'https:';
  }

  /** A new agent with the kubeconfig's TLS material; keep-alive for the shared one, not for watches. */
  createAgent(keepAlive: boolean): http.Agent {
    const common = { keepAlive, maxFreeSockets: DEFAULT_MAX_FREE_SOCKETS, scheduling: 'lifo' as const };
    return this.isHttps ? new https.Agent({ ...common, ...this.tls }) : new http.Agent(common);
  }

  /** The shared keep-alive agent (client-node's proxy agent when the cluster has a `proxy-url`). */
  async agent(): Promise<http.Agent> {
    if (this.agentValue === undefined) {
      const opts: https.RequestOptions = {};
      await this.kubeConfig.applyToHTTPSOptions(opts);
      this.agentValue = opts.agent instanceof http.Agent ? opts.agent : this.createAgent(true);
    }
    return this.agentValue;
  }

  /** Credentials and impersonation headers from the kubeconfig (refreshed for exec/auth-provider users). */
  async headers(): Promise<Record<string, string>> {
    if (this.staticAuth && this.cachedHeaders !== undefined) return this.cachedHeaders;
    const opts: https.RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(opts);
    const headers: Record<string, string> = { 'User-Agent': this.userAgent };
    for (const [name, value] of Object.entries(opts.headers ?? {})) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    }
    if (typeof opts.auth === 'string' && opts.auth !== ':' && opts.auth !== 'undefined:undefined') {
      headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    }
    this.cachedHeaders = headers;
    return headers;
  }

  /** Full URL of `path` with `query` (undefined values skipped). */
  url(path: string, query?: KubeRequest['query']): URL {
    const base = this.server.pathname.replace(/\/$/, '');
    const url = new URL(this.server.origin + base + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url;
  }

  /** Opens a request and resolves with the response head; the caller reads (or destroys) the body. */
  async open(req: KubeRequest, agent: http.Agent): Promise<http.IncomingMessage> {
    const url = this.url(req.path, req.query);
    const headers: Record<string, string> = { ...(await this.headers()), Accept: 'application/json' };
    let payload: Buffer | undefined;
    if (req.body !== undefined) {
      payload = Buffer.from(JSON.stringify(req.body));
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    return this.openUrl(url, req.method, headers, payload, agent, req.signal);
  }

  /** Low-level request to a full URL with the given headers (credentials are not added here). */
  openUrl(
    url: URL,
    method: string,
    headers: Record<string, string>,
    payload: Buffer | string | undefined,
    agent: http.Agent,
    signal?: AbortSignal,
  ): Promise<http.IncomingMessage> {
    const send = url.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const request = send(url, { method, headers, agent, signal }, resolve);
      request.on('error', (err) => {
        reject(signal?.aborted === true ? err : connectionError(err, `${method} ${url.pathname} failed`));
      });
      request.end(payload);
    });
  }

  /** Sends a request over the shared agent; resolves with the decoded JSON body, rejects with ApiError. */
  async request(req: KubeRequest): Promise<unknown> {
    const res = await this.open(req, await this.agent());
    const body = await readBody(res, req);
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return body.length === 0 ? {} : (JSON.parse(body) as unknown);
    throw toApiError(status, body, res.headers, `${req.method} ${req.path}`);
  }

  /** Closes the idle sockets of the shared agent (when this transport created it). */
  close(): void {
    if (this.ownsAgent) this.agentValue?.destroy();
  }
}

/** Reads a whole response body. */
export function readBody(res: http.IncomingMessage, req: { method: string; path: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    res.on('error', (err) => {
      reject(connectionError(err, `${req.method} ${req.path}: reading the response failed`));
    });
  });
}

/** Decodes an error response (a Kubernetes `Status`, or anything else) into an {@link ApiError}. */
export function toApiError(
  code: number,
  body: string,
  headers: http.IncomingHttpHeaders,
  what: string,
): ApiError {
  let status: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (typeof parsed === 'object' && parsed !== null) status = parsed as Record<string, unknown>;
  } catch {
    // not JSON: keep the raw text as the message
  }
  const reason = typeof status?.reason === 'string' ? status.reason : (http.STATUS_CODES[code] ?? 'Unknown');
  const message = typeof status?.message === 'string' ? status.message : body.slice(0, 500);
  const details = status?.details as { retryAfterSeconds?: unknown } | undefined;
  const header = headers['retry-after'];
  const retryAfter =
    typeof details?.retryAfterSeconds === 'number'
      ? details.retryAfterSeconds
      : header !== undefined && /^\d+$/.test(header)
        ? Number(header)
        : undefined;
  return new ApiError({
    code,
    reason,
    message: `${what}: ${code} ${reason}: ${message}`,
    ...(status !== undefined ? { status } : {}),
    ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
  });
}
