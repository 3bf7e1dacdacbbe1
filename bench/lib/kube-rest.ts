// The driver's own minimal Kubernetes REST client: keep-alive JSON over node:http(s), auth and TLS from a
// kubeconfig. The driver seeds objects and observes convergence with it, so its cost is the same for every
// system under test and it shares no code with them.
import http from 'node:http';
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

/** A non-2xx answer; `status` is the HTTP code, `body` the decoded Status if any. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    message: string,
  ) {
    super(message);
    this.name = 'RestError';
  }
}

/** True when err is a RestError with the given HTTP status. */
export function isRestStatus(err: unknown, status: number): boolean {
  return err instanceof RestError && err.status === status;
}

/** Options of one request. */
export interface RestRequestOptions {
  /** Content-Type of the body; default application/json. */
  contentType?: string;
  /** Aborts the request (and a watch stream). */
  signal?: AbortSignal;
}

/** Keep-alive REST client bound to one kubeconfig's current cluster and user. */
export class KubeRest {
  readonly server: string;
  private readonly isHttps: boolean;
  private readonly agent: http.Agent;

  private constructor(
    readonly kubeConfig: KubeConfig,
    private readonly base: https.RequestOptions,
    maxSockets: number,
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/$/, '');
    this.isHttps = this.server.startsWith('https:');
    const agentOptions = { keepAlive: true, maxSockets };
    this.agent = this.isHttps
      ? new https.Agent({
          ...agentOptions,
          ca: base.ca,
          cert: base.cert,
          key: base.key,
          rejectUnauthorized: base.rejectUnauthorized,
        })
      : new http.Agent(agentOptions);
  }

  /** Builds a client from a kubeconfig file (or the default loading rules when path is undefined). */
  static async fromFile(path: string | undefined, maxSockets = 16): Promise<KubeRest> {
    const kc = new KubeConfig();
    if (path === undefined) kc.loadFromDefault();
    else kc.loadFromFile(path);
    const base: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(base);
    return new KubeRest(kc, base, maxSockets);
  }

  /** Sends one request and decodes the JSON answer; throws RestError on a non-2xx status. */
  request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    options: RestRequestOptions = {},
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const req = this.open(method, path, body, options, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let decoded: unknown;
          try {
            decoded = text.length > 0 ? JSON.parse(text) : undefined;
          } catch {
            decoded = text;
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve(decoded as T);
          else
            reject(new RestError(status, decoded, `${method} ${path}: HTTP ${status} ${text.slice(0, 200)}`));
        });
      });
      req.on('error', reject);
    });
  }

  /**
   * Opens a watch stream and calls onEvent per line; resolves when the stream ends (or is aborted).
   * `onOpen` runs once the response headers arrive, i.e. when the server has registered the watch.
   */
  watch(
    path: string,
    signal: AbortSignal,
    onEvent: (type: string, object: any) => void,
    onOpen?: () => void,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const req = this.open('GET', path, undefined, { signal }, (res) => {
        if ((res.statusCode ?? 0) >= 300) {
          res.resume();
          reject(new RestError(res.statusCode ?? 0, undefined, `watch ${path}: HTTP ${res.statusCode}`));
          return;
        }
        onOpen?.();
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let newline = buffered.indexOf('\n');
          while (newline >= 0) {
            const line = buffered.slice(0, newline).trim();
            buffered = buffered.slice(newline + 1);
            if (line.length > 0) {
              const event = JSON.parse(line) as { type: string; object: unknown };
              onEvent(event.type, event.object);
            }
            newline = buffered.indexOf('\n');
          }
        });
        res.on('end', () => {
          resolve();
        });
        res.on('error', () => {
          resolve();
        });
      });
      req.on('error', (err) => {
        if (signal.aborted) resolve();
        else reject(err);
      });
    });
  }

  /** Closes idle keep-alive sockets. */
  close(): void {
    this.agent.destroy();
  }

  private open(
    method: string,
    path: string,
    body: unknown,
    options: RestRequestOptions,
    onResponse: (res: http.IncomingMessage) => void,
  ): http.ClientRequest {
    const url = new URL(this.server + path);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const baseHeaders = (this.base.headers ?? {}) as http.OutgoingHttpHeaders;
    const headers: http.OutgoingHttpHeaders = { ...baseHeaders, Accept: 'application/json' };
    if (payload) {
      headers['Content-Type'] = options.contentType ?? 'application/json';
      headers['Content-Length'] = payload.length;
    }
    const requestOptions: https.RequestOptions = {
      method,
      hostname: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      headers,
      agent: this.agent,
      signal: options.signal,
    };
    if (this.base.auth !== undefined) requestOptions.auth = this.base.auth;
    const req = this.isHttps
      ? https.request(requestOptions, onResponse)
      : http.request(requestOptions, onResponse);
    req.end(payload);
    return req;
  }
}
