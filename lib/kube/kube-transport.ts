import { createHash } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import type * as http from 'node:http';
import type * as https from 'node:https';
import type * as tls from 'node:tls';
import { lazyModule } from '../util/lazy-module.js';
import { nodeHttp, nodeHttps, nodeTls } from '../util/node-http.js';
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { ApiError, connectionError } from './api-error.js';
import { parseWarningHeaders, type WarningHandler } from './api-warnings.js';
import { KubeCredentials, type Credential } from './kube-credentials.js';
import { asClientNode, type LoadedKubeConfig } from './loaded-kube-config.js';

/** hpagent (CommonJS), required when a proxy is configured: see `exponentialBackoff` in util/backoff. */
const hpagent = lazyModule('hpagent') as () => typeof import('hpagent');

/** The contents of a kubeconfig `file` field, else its base64 `-data` field decoded, else null. */
function bufferFromFileOrString(file?: string | null, data?: string | null): Buffer | null {
  if (file) return readFileSync(file);
  if (data) return Buffer.from(data, 'base64');
  return null;
}

/** The request options of a server URL (what `http.request` takes from a `URL`), computed once. */
function endpointOf(url: URL): Pick<https.RequestOptions, 'protocol' | 'hostname' | 'port' | 'auth'> {
  const { hostname } = url;
  return {
    protocol: url.protocol,
    // An IPv6 literal comes bracketed in a URL, not in request options.
    hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
    ...(url.port === '' ? {} : { port: Number(url.port) }),
    ...(url.username === '' && url.password === ''
      ? {}
      : { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }),
  };
}

/** The path of a request path with its query (for messages and warnings). */
function pathname(path: string | null | undefined): string {
  const p = path ?? '/';
  const q = p.indexOf('?');
  return q < 0 ? p : p.slice(0, q);
}

function certificateId(cert: string | Buffer): string {
  return createHash('sha256').update(cert).digest('hex').slice(0, 16);
}

/**
 * Default `User-Agent` of reconcilekit's requests.
 * @category Kubernetes client
 */
export const DEFAULT_USER_AGENT = 'reconcilekit';

/**
 * Idle sockets kept per host by the shared agent. Default 32: enough for many workers, bounded.
 * @category Kubernetes client
 */
export const DEFAULT_MAX_FREE_SOCKETS = 32;

/**
 * How long the shared agent keeps an idle connection, in ms. Default 60 s: kube-apiserver closes an idle
 * HTTP/1.1 connection after 90 s (its `http.Server` `IdleTimeout`), and a request written to a connection
 * the server is closing fails with "socket hang up"; closing ours first keeps the two from racing.
 * @category Kubernetes client
 */
export const DEFAULT_IDLE_SOCKET_TIMEOUT_MS = 60_000;

/**
 * One HTTP request to the API server.
 * @category Kubernetes client
 */
export interface KubeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the server URL, e.g. `/api/v1/namespaces/default/configmaps`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Request body; serialised with JSON.stringify. */
  body?: unknown;
  /** Content type of the body. Default: `application/json`. */
  contentType?: string;
  /**
   * `Accept` header. Default: `application/json`. {@link PARTIAL_OBJECT_METADATA_ACCEPT} and
   * {@link PARTIAL_OBJECT_METADATA_LIST_ACCEPT} ask for metadata only.
   */
  accept?: string;
  signal?: AbortSignal;
}

/**
 * `Accept` of a get or watch that wants objects as `PartialObjectMetadata` (metadata only, JSON).
 * @category Kubernetes client
 */
export const PARTIAL_OBJECT_METADATA_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

/**
 * `Accept` of a list that wants a `PartialObjectMetadataList` (metadata only, JSON).
 * @category Kubernetes client
 */
export const PARTIAL_OBJECT_METADATA_LIST_ACCEPT =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

/**
 * What {@link KubeTransport}'s constructor takes.
 * @category Kubernetes client
 */
export interface KubeTransportOptions {
  /**
   * Source of the server URL, TLS material and credentials: a client-node `KubeConfig`, or the
   * {@link LoadedKubeConfig} reconcilekit reads itself (without loading client-node).
   */
  kubeConfig: KubeConfig | LoadedKubeConfig;
  /** Agent for every non-watch request. Default: one keep-alive agent built from the kubeconfig's TLS. */
  agent?: http.Agent | https.Agent;
  /** `User-Agent` header. Default: {@link DEFAULT_USER_AGENT}. */
  userAgent?: string;
  /**
   * Called for each `299` Warning header of each response (deprecations and the like). Default: none —
   * a controller's or Operator's client gets {@link loggingWarningHandler} (see their `warningHandler`).
   */
  warningHandler?: WarningHandler;
  /**
   * How long the shared agent keeps an idle connection, in ms (it must be below the server's idle timeout).
   * Default: {@link DEFAULT_IDLE_SOCKET_TIMEOUT_MS}. Not used with a given `agent`.
   */
  idleSocketTimeoutMs?: number;
}

type TlsOptions = Pick<https.AgentOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'servername'>;

/**
 * The TLS options of an agent: one `SecureContext` made from the CA, certificate and key (shared by the
 * agents of one credential), so a new connection does not parse them again — Node makes a context per
 * connection from `ca`/`cert`/`key` — and the agent's per-request connection name does not stringify
 * them.
 */
function agentTls(
  options: TlsOptions,
  context: tls.SecureContext,
): Pick<https.AgentOptions, 'secureContext' | 'rejectUnauthorized' | 'servername'> {
  const { ca: _ca, cert: _cert, key: _key, ...rest } = options;
  return { ...rest, secureContext: context };
}

/** Which agent a request goes through: the shared keep-alive one, or a fresh connection (watches). */
export type AgentKind = 'shared' | 'watch';

/**
 * The HTTP layer under {@link ObjectClient}: the server URL, one shared keep-alive agent for every
 * request, a separate connection per watch (through the same `proxy-url`), and the kubeconfig's
 * credentials (`KubeCredentials`: rotated token files, exec plugins, impersonation), retried once
 * with a fresh credential after a 401.
 *
 * Why: client-node 1.4 builds a fresh `https.Agent` for every request (`applySecurityAuthentication` →
 * `createAgent`), so no connection is ever reused and each call pays TCP (and TLS) setup. See
 * docs/http-client.md.
 * @category Kubernetes client
 */
export class KubeTransport {
  readonly server: URL;
  /** The configuration this transport was built from, as given. */
  readonly source: KubeConfig | LoadedKubeConfig;
  /** The credential source (exposed for tests and for callers that open their own connections). */
  readonly credentials: KubeCredentials;
  private readonly userAgent: string;
  private readonly tls: TlsOptions;
  private readonly proxyUrl: string | undefined;
  private readonly givenAgent: http.Agent | undefined;
  private readonly idleSocketTimeoutMs: number;
  /** Agents by kind and client-certificate identity (an exec plugin may rotate the certificate). */
  private readonly agents = new Map<string, http.Agent>();
  /** The TLS context of the current credential's agents, by client-certificate identity. */
  private secureContext: { id: string; context: tls.SecureContext } | undefined;
  /** The client certificate's identity per credential, hashed once rather than per request. */
  private readonly credentialIds = new WeakMap<Credential, string>();
  /** The server's path prefix (no trailing slash) and the request options every request shares. */
  private readonly basePath: string;
  private readonly endpoint: Pick<https.RequestOptions, 'protocol' | 'hostname' | 'port' | 'auth'>;
  private cachedCredential: Credential | undefined;
  /** Gets the server's `Warning` headers (see {@link KubeTransportOptions.warningHandler}); replaceable. */
  warningHandler: WarningHandler | undefined;

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
    this.source = kc;
    this.server = new URL(cluster.server);
    this.basePath = this.server.pathname.replace(/\/$/, '');
    this.endpoint = endpointOf(this.server);
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    const user = kc.getCurrentUser();
    // TLS material is read once here (in-cluster: ca.crt once, not per request).
    this.tls = {};
    const ca = bufferFromFileOrString(cluster.caFile, cluster.caData);
    if (ca !== null) this.tls.ca = ca;
    const cert = bufferFromFileOrString(user?.certFile, user?.certData);
    if (cert !== null) this.tls.cert = cert;
    const key = bufferFromFileOrString(user?.keyFile, user?.keyData);
    if (key !== null) this.tls.key = key;
    if (cluster.skipTLSVerify) this.tls.rejectUnauthorized = false;
    if (cluster.tlsServerName !== undefined) this.tls.servername = cluster.tlsServerName;
    this.proxyUrl = cluster.proxyUrl;
    if (this.proxyUrl !== undefined && !/^https?:/.test(this.proxyUrl)) {
      throw new InvalidConfigError(
        `proxy-url ${this.proxyUrl} is not supported: use an http:// or https:// proxy (CONNECT)`,
      );
    }
    this.credentials = new KubeCredentials(kc);
    this.givenAgent = options.agent;
    this.idleSocketTimeoutMs = options.idleSocketTimeoutMs ?? DEFAULT_IDLE_SOCKET_TIMEOUT_MS;
    this.warningHandler = options.warningHandler;
  }

  /** The configuration as a client-node `KubeConfig` (made, loading client-node, when it was not one). */
  get kubeConfig(): KubeConfig {
    return asClientNode(this.source);
  }

  private get isHttps(): boolean {
    return this.server.protocol === 'https:';
  }

  /**
   * A new agent with the kubeconfig's TLS material (and a client certificate from an exec plugin when
   * given), through the cluster's `proxy-url` when it has one; keep-alive for the shared one (idle
   * connections closed after `idleSocketTimeoutMs`: Node's agent destroys a free socket whose timeout
   * fires, and only emits `timeout` on one in use), not for watches.
   */
  createAgent(keepAlive: boolean, credential?: Pick<Credential, 'cert' | 'key'>): http.Agent {
    const common = {
      keepAlive,
      maxFreeSockets: DEFAULT_MAX_FREE_SOCKETS,
      scheduling: 'lifo' as const,
      ...(keepAlive ? { timeout: this.idleSocketTimeoutMs } : {}),
    };
    const tls: TlsOptions = { ...this.tls };
    if (credential?.cert !== undefined && credential.key !== undefined) {
      tls.cert = credential.cert;
      tls.key = credential.key;
    }
    if (!this.isHttps) {
      return this.proxyUrl === undefined
        ? new nodeHttp.Agent(common)
        : new (hpagent().HttpProxyAgent)({ ...common, proxy: this.proxyUrl });
    }
    const secure = agentTls(tls, this.contextFor(tls));
    return this.proxyUrl === undefined
      ? new nodeHttps.Agent({ ...common, ...secure })
      : new (hpagent().HttpsProxyAgent)({ ...common, ...secure, proxy: this.proxyUrl });
  }

  /** One `SecureContext` per client certificate (the shared and the watch agents use the same one). */
  private contextFor(options: TlsOptions): tls.SecureContext {
    const id = options.cert === undefined ? '' : certificateId(options.cert as string | Buffer);
    if (this.secureContext?.id !== id) {
      const { ca, cert, key } = options;
      this.secureContext = { id, context: nodeTls.createSecureContext({ ca, cert, key }) };
    }
    return this.secureContext.context;
  }

  /** The agent of `kind` for the current credential (a rotated client certificate gets a new one). */
  async agent(kind: AgentKind = 'shared'): Promise<http.Agent> {
    if (kind === 'shared' && this.givenAgent !== undefined) return this.givenAgent;
    return this.agentFor(kind, await this.credential());
  }

  private agentFor(kind: AgentKind, credential: Credential): http.Agent {
    if (kind === 'shared' && this.givenAgent !== undefined) return this.givenAgent;
    let certId = this.credentialIds.get(credential);
    if (certId === undefined) {
      certId = credential.cert === undefined ? '' : certificateId(credential.cert);
      this.credentialIds.set(credential, certId);
    }
    const id = `${kind}:${certId}`;
    let agent = this.agents.get(id);
    if (agent === undefined) {
      for (const [other, old] of this.agents) {
        if (other.startsWith(`${kind}:`)) {
          old.destroy();
          this.agents.delete(other);
        }
      }
      agent = this.createAgent(kind === 'shared', credential);
      this.agents.set(id, agent);
    }
    return agent;
  }

  private async credential(): Promise<Credential> {
    if (!this.credentials.dynamic && this.cachedCredential !== undefined) return this.cachedCredential;
    const credential = await this.credentials.current();
    this.cachedCredential = credential;
    return credential;
  }

  /** Credentials and impersonation headers (Impersonate-Group and -Extra-* may repeat: arrays). */
  async headers(): Promise<OutgoingHttpHeaders> {
    return { 'User-Agent': this.userAgent, ...(await this.credential()).headers };
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

  /**
   * Opens a request and resolves with the response head; the caller reads (or destroys) the body. A 401
   * with a credential that can change (token file, exec plugin) is retried once with a fresh one.
   */
  async open(req: KubeRequest, kind: AgentKind = 'shared'): Promise<http.IncomingMessage> {
    const path = this.requestPath(req.path, req.query);
    // A string body goes out in one write with the request head (a Buffer is written after it).
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
    for (let attempt = 0; ; attempt++) {
      const credential = await this.credential();
      const headers: OutgoingHttpHeaders = {
        'User-Agent': this.userAgent,
        ...credential.headers,
        Accept: req.accept ?? 'application/json',
      };
      if (payload !== undefined) {
        headers['Content-Type'] = req.contentType ?? 'application/json';
        headers['Content-Length'] = String(Buffer.byteLength(payload));
      }
      const options = {
        ...this.endpoint,
        path,
        method: req.method,
        headers,
        agent: this.agentFor(kind, credential),
      };
      const res = await this.send(options, payload, req.signal);
      if (res.statusCode !== 401 || attempt > 0 || !this.credentials.invalidate()) return res;
      res.resume();
    }
  }

  /**
   * Path and query of a request below the server URL. A path of printable ASCII is used as it is (the
   * client encodes names and namespaces); anything else is normalised through `URL`, as before.
   */
  private requestPath(path: string, query?: KubeRequest['query']): string {
    let search = '';
    if (query !== undefined) {
      const params = new URLSearchParams();
      for (const name in query) {
        const value = query[name];
        if (value !== undefined) params.set(name, String(value));
      }
      const encoded = params.toString();
      if (encoded !== '') search = `?${encoded}`;
    }
    if (/^[!-~]*$/.test(path)) return this.basePath + path + search;
    const url = new URL(this.server.origin + this.basePath + path);
    return url.pathname + search;
  }

  /** Low-level request to a full URL with the given headers (credentials are not added here). */
  openUrl(
    url: URL,
    method: string,
    headers: OutgoingHttpHeaders,
    payload: Buffer | string | undefined,
    agent: http.Agent,
    signal?: AbortSignal,
  ): Promise<http.IncomingMessage> {
    return this.send(
      { ...endpointOf(url), path: url.pathname + url.search, method, headers, agent },
      payload,
      signal,
    );
  }

  private send(
    options: https.RequestOptions,
    payload: Buffer | string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<http.IncomingMessage> {
    const send = options.protocol === 'https:' ? nodeHttps.request : nodeHttp.request;
    const method = options.method ?? 'GET';
    return new Promise((resolve, reject) => {
      const attempt = (retry: boolean): void => {
        const request = send(signal === undefined ? options : { ...options, signal }, (res) => {
          if (this.warningHandler !== undefined) this.reportWarnings(res, method, pathname(options.path));
          resolve(res);
        });
        request.on('error', (err) => {
          if (signal?.aborted === true) {
            reject(err);
            return;
          }
          // A GET that failed on a kept-alive connection before any answer is sent once more on another,
          // as Go's transport retries a replayable request: the server may have closed the idle
          // connection as the request went out. A write is not repeated (it may have been applied).
          if (retry && request.reusedSocket && method === 'GET' && isConnectionReset(err)) {
            attempt(false);
            return;
          }
          reject(connectionError(err, `${method} ${pathname(options.path)} failed`));
        });
        request.end(payload);
      };
      attempt(true);
    });
  }

  /** Hands the response's 299 `Warning` headers to the handler; a handler that throws costs the request nothing. */
  private reportWarnings(res: http.IncomingMessage, method: string, path: string): void {
    const values: string[] = [];
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
      if (res.rawHeaders[i]?.toLowerCase() === 'warning') values.push(res.rawHeaders[i + 1] ?? '');
    }
    if (values.length === 0) return;
    for (const warning of parseWarningHeaders(values)) {
      try {
        this.warningHandler?.(warning, { method, path });
      } catch {
        // The handler is the user's: its failure must not fail the API call.
      }
    }
  }

  /** Sends a request over the shared agent; resolves with the decoded JSON body, rejects with ApiError. */
  async request(req: KubeRequest): Promise<unknown> {
    const res = await this.open(req);
    const body = await readBody(res, req);
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return body.length === 0 ? {} : (JSON.parse(body) as unknown);
    throw toApiError(status, body, res.headers, `${req.method} ${req.path}`);
  }

  /** Closes the sockets of the agents this transport created (a given agent is the caller's). */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
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
  const reason =
    typeof status?.reason === 'string' ? status.reason : (nodeHttp.STATUS_CODES[code] ?? 'Unknown');
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

/** A connection closed under a request: reset by the peer, or closed before the answer came. */
function isConnectionReset(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}
