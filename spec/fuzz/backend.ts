// One API server as the fuzzer sees it: raw HTTP requests over a keep-alive connection (client-node's
// kubeconfig handling supplies the TLS material and credentials), and watches read line by line.
import http from 'node:http';
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

/** An answer as it came over the wire. */
export interface RawAnswer {
  status: number;
  /** The parsed JSON body, or the text when it is not JSON. */
  body: unknown;
  /** The texts of `Warning` headers (`299 - "text"` → `text`), in order. */
  warnings: string[];
}

export interface WatchEvent {
  type: string;
  object: unknown;
}

/** A watch being read: every event received so far, in order. */
export interface OpenWatch {
  readonly events: WatchEvent[];
  /** Set when the stream ended (the server closed it or it failed). */
  readonly ended: boolean;
  close(): void;
}

const WARNING = /^\d{3} [^ ]+ "((?:[^"\\]|\\.)*)"/;

function warningsOf(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const values = Array.isArray(header) ? header : [header];
  // Several warnings may share one header line, separated by commas outside the quotes.
  const texts: string[] = [];
  for (const value of values) {
    let rest = value.trim();
    while (rest !== '') {
      const m = WARNING.exec(rest);
      if (m === null) {
        texts.push(rest);
        break;
      }
      texts.push((m[1] ?? '').replace(/\\(.)/g, '$1'));
      rest = rest.slice(m[0].length).replace(/^\s*,\s*/, '');
    }
  }
  return texts;
}

/** HTTP access to one server, built from its kubeconfig. */
export class Backend {
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly watchAgent: http.Agent;
  private readonly watches = new Set<http.ClientRequest>();

  private constructor(
    readonly name: string,
    base: URL,
    tls: https.AgentOptions,
  ) {
    this.base = base;
    const secure = base.protocol === 'https:';
    const options = { keepAlive: true, maxSockets: 8 };
    this.agent = secure ? new https.Agent({ ...options, ...tls }) : new http.Agent(options);
    this.watchAgent = secure ? new https.Agent({ ...tls }) : new http.Agent();
  }

  /** A backend for the server a kubeconfig (YAML) names. */
  static async fromKubeconfig(name: string, kubeconfig: string): Promise<Backend> {
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig);
    const server = kc.getCurrentCluster()?.server;
    if (server === undefined) throw new Error(`${name}: the kubeconfig names no server`);
    const options: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(options);
    const tls: https.AgentOptions = {};
    if (options.ca !== undefined) tls.ca = options.ca;
    if (options.cert !== undefined) tls.cert = options.cert;
    if (options.key !== undefined) tls.key = options.key;
    if (options.rejectUnauthorized !== undefined) tls.rejectUnauthorized = options.rejectUnauthorized;
    const headers = options.headers as Record<string, string> | undefined;
    const backend = new Backend(name, new URL(server), tls);
    if (headers?.Authorization !== undefined) backend.authorization = headers.Authorization;
    return backend;
  }

  private authorization: string | undefined;

  private send(path: string, method: string, headers: Record<string, string>, agent: http.Agent) {
    const url = new URL(this.base.href.replace(/\/$/, '') + path);
    const all: Record<string, string> = { Accept: 'application/json', ...headers };
    if (this.authorization !== undefined) all.Authorization = this.authorization;
    const options: https.RequestOptions = { method, headers: all, agent };
    return url.protocol === 'https:' ? https.request(url, options) : http.request(url, options);
  }

  /** One request; the body is sent as given (a string) with `contentType`. */
  request(method: string, path: string, body?: string, contentType = 'application/json'): Promise<RawAnswer> {
    const headers: Record<string, string> = {};
    if (body !== undefined) {
      headers['Content-Type'] = contentType;
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    return new Promise((resolve, reject) => {
      const req = this.send(path, method, headers, this.agent);
      req.setTimeout(30_000, () => req.destroy(new Error(`${this.name}: ${method} ${path} timed out`)));
      req.on('error', reject);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text === '' ? '' : JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, warnings: warningsOf(res.headers.warning) });
        });
      });
      req.end(body);
    });
  }

  /** Opens a watch (the path carries `watch=1` and its options) and collects its events. */
  watch(path: string): Promise<OpenWatch> {
    return new Promise((resolve, reject) => {
      const req = this.send(path, 'GET', {}, this.watchAgent);
      this.watches.add(req);
      const events: WatchEvent[] = [];
      const handle = {
        events,
        ended: false,
        close: () => {
          this.watches.delete(req);
          req.destroy();
        },
      };
      req.on('error', (e) => {
        handle.ended = true;
        reject(e);
      });
      req.on('response', (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`${this.name}: watch ${path} answered ${String(res.statusCode)}`));
          return;
        }
        let pending = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          pending += chunk;
          let newline = pending.indexOf('\n');
          while (newline >= 0) {
            const line = pending.slice(0, newline).trim();
            pending = pending.slice(newline + 1);
            if (line !== '') events.push(JSON.parse(line) as WatchEvent);
            newline = pending.indexOf('\n');
          }
        });
        res.on('end', () => {
          handle.ended = true;
        });
        res.on('error', () => {
          handle.ended = true;
        });
        resolve(handle);
      });
      req.end();
    });
  }

  close(): void {
    for (const req of this.watches) req.destroy();
    this.watches.clear();
    this.agent.destroy();
    this.watchAgent.destroy();
  }
}
