import { createServer, request, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One API request as RBAC sees it. */
export interface ApiCall {
  /** API group ('' for the core group). */
  group: string;
  /** Resource, with `/subresource` when there is one (e.g. `websites/status`). */
  resource: string;
  /** RBAC verb: get, list, watch, create, update, patch, delete, deletecollection. */
  verb: string;
  /** Namespace of the request, if namespaced. */
  namespace?: string;
}

/** Maps an HTTP request on the Kubernetes API to its RBAC coordinates; undefined for discovery and other non-resource paths. */
export function apiCallOf(method: string, url: string): ApiCall | undefined {
  const parsed = new URL(url, 'http://proxy');
  const parts = parsed.pathname.split('/').filter((p) => p !== '');
  let rest: string[];
  let group: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1]!;
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, sub] = rest;
  if (resource === undefined) return undefined;
  const watch = parsed.searchParams.get('watch');
  let verb: string;
  switch (method) {
    case 'GET':
      verb = watch === 'true' || watch === '1' ? 'watch' : name === undefined ? 'list' : 'get';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name === undefined ? 'deletecollection' : 'delete';
      break;
    default:
      verb = method.toLowerCase();
  }
  return {
    group,
    resource: sub === undefined ? resource : `${resource}/${sub}`,
    verb,
    ...(namespace === undefined ? {} : { namespace }),
  };
}

/**
 * A plain HTTP proxy in front of an API server that records every request (including watches). With
 * `answerDelayMs`, the answer to each request it returns a delay for is held that long (the server has
 * already acted on it: its watch events go out first).
 */
export class RecordingProxy {
  readonly calls: ApiCall[] = [];
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly target: string,
    private readonly answerDelayMs?: (call: ApiCall) => number,
  ) {}

  /** Starts listening on 127.0.0.1 (any port); resolves to the proxy's URL. */
  async start(): Promise<string> {
    const target = new URL(this.target);
    const server = createServer((req, res) => {
      const call = apiCallOf(req.method ?? 'GET', req.url ?? '/');
      if (call !== undefined) this.calls.push(call);
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
        },
        (answer) => {
          const forward = (): void => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          };
          const delayMs = call === undefined ? 0 : (this.answerDelayMs?.(call) ?? 0);
          if (delayMs > 0) setTimeout(forward, delayMs);
          else forward();
        },
      );
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  }
}
