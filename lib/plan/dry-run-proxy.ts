import type { IncomingMessage, ServerResponse } from 'node:http';
import { Worker } from 'node:worker_threads';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { constantTimeEqual } from '../util/constant-time-equal.js';
import { randomToken } from '../util/random-token.js';
import type * as http from 'node:http';
import type * as https from 'node:https';
import { nodeHttp, nodeHttps } from '../util/node-http.js';

/** Most bytes of a request body the proxy reads before deciding (kube-apiserver's own request limit). */
export const DRY_RUN_PROXY_MAX_BODY_BYTES = 3 * 1024 * 1024;

/** One request the dry-run proxy refused: it never reached the API server. */
export interface RefusedWrite {
  /** `POST`, `PUT`, `PATCH`, `DELETE`, or `GET` for a subresource that acts (exec, proxy, …). */
  readonly method: string;
  /** The request path, e.g. `/api/v1/namespaces/default/configmaps`. */
  readonly path: string;
  /** The object it would have changed: `configmaps default/name` (the name from the body for a create). */
  readonly object: string;
  /** Why it was refused. */
  readonly reason: string;
}

/** A local proxy in front of the API server that forwards reads and dry-run writes only. */
export interface DryRunProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** A kubeconfig (YAML) for the proxy, with its token; the real credentials stay in this process. */
  readonly kubeconfig: string;
  /** The requests it refused, in order. */
  readonly refused: readonly RefusedWrite[];
  close(): Promise<void>;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Subresources that act on their own (a command in a pod, a request to a service) whatever the method. */
const ACTING =
  /^\/api\/v1\/(?:namespaces\/[^/]+\/)?(?:pods|services|nodes)\/[^/]+\/(exec|attach|portforward|proxy)(?:\/|$)/;

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code });
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** `configmaps default/name` from a resource path, the name of a create taken from its body. */
function objectOf(path: string, body: Buffer | undefined): string {
  const parts = path.split('/').filter((p) => p !== '');
  const start = parts[0] === 'api' ? 2 : 3; // /api/v1/… or /apis/<group>/<version>/…
  let rest = parts.slice(start);
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const resource = rest[0] ?? path;
  let name = rest[1];
  if (name === undefined && body !== undefined && body.length > 0) {
    try {
      const meta = (
        JSON.parse(body.toString('utf8')) as { metadata?: { name?: string; generateName?: string } }
      ).metadata;
      name = meta?.name ?? (meta?.generateName === undefined ? undefined : `${meta.generateName}*`);
    } catch {
      // not JSON: the collection is named alone
    }
  }
  const sub = rest.length > 2 ? `/${rest.slice(2).join('/')}` : '';
  const who = name === undefined ? '' : ` ${namespace === undefined ? '' : `${namespace}/`}${name}`;
  return `${resource}${who}${sub}`;
}

function dryRunAll(url: URL): boolean {
  return url.searchParams.getAll('dryRun').includes('All');
}

/** A DELETE's body (DeleteOptions) wins over its query on the API server: it must say dryRun All too. */
function bodyUndoesDryRun(body: Buffer): boolean {
  const text = body.toString('utf8').trim();
  if (text === '') return false;
  try {
    const options = JSON.parse(text) as { dryRun?: unknown };
    return !(Array.isArray(options.dryRun) && options.dryRun.includes('All'));
  } catch {
    return true;
  }
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > DRY_RUN_PROXY_MAX_BODY_BYTES) {
        req.pause();
        resolve('too large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

/**
 * Serves a proxy on 127.0.0.1 in front of `real`'s API server for `reconcilekit plan`: the process (and
 * every child process and worker it starts) gets only the proxy's kubeconfig, so whatever way code opens a
 * connection with it — any HTTP client, a raw socket, another process — reads pass and every write
 * without `dryRun=All` is refused (403) and recorded, never sent. Subresources that act whatever the
 * method (exec, attach, portforward, proxy) and connection upgrades are refused too. Requests need the
 * proxy's token; its outgoing requests carry `real`'s credentials.
 */
export async function serveDryRunProxy(real: KubeConfig): Promise<DryRunProxy> {
  const cluster = real.getCurrentCluster();
  if (cluster === null || cluster.server === '') {
    throw new InvalidConfigError('plan: the kubeconfig has no current cluster with a server to plan against');
  }
  const upstream = new URL(cluster.server);
  const prefix = upstream.pathname.replace(/\/$/, '');
  // Taken now: the plan's HTTP guard, installed later, must not see the proxy's own forwarding.
  const send = upstream.protocol === 'https:' ? nodeHttps.request : nodeHttp.request;
  const token = randomToken();
  const refused: RefusedWrite[] = [];
  const refuse = (
    res: ServerResponse,
    method: string,
    url: URL,
    body: Buffer | undefined,
    reason: string,
  ): void => {
    refused.push({ method, path: url.pathname, object: objectOf(url.pathname, body), reason });
    status(
      res,
      403,
      'Forbidden',
      `reconcilekit plan: ${method} ${url.pathname} refused: ${reason}; a plan changes nothing`,
    );
  };

  const forward = async (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    body: Buffer | undefined,
  ): Promise<void> => {
    const headers: http.OutgoingHttpHeaders = { ...req.headers };
    delete headers.authorization;
    delete headers.host;
    delete headers.connection;
    const options: https.RequestOptions = { method: req.method ?? 'GET', headers };
    await real.applyToHTTPSOptions(options);
    const target = new URL(`${upstream.origin}${prefix}${url.pathname}${url.search}`);
    const out = send(target, options, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', (err) => {
      if (!res.headersSent)
        status(res, 502, 'BadGateway', `reconcilekit plan: the API server: ${err.message}`);
      else res.destroy();
    });
    res.on('close', () => out.destroy());
    if (body !== undefined) out.end(body);
    else req.pipe(out);
  };

  const server = nodeHttp.createServer((req, res) => {
    void (async () => {
      const auth = req.headers.authorization ?? '';
      if (!auth.startsWith('Bearer ') || !constantTimeEqual(auth.slice(7), token)) {
        status(
          res,
          401,
          'Unauthorized',
          'reconcilekit plan: the dry-run proxy needs its own kubeconfig token',
        );
        return;
      }
      const method = (req.method ?? 'GET').toUpperCase();
      const url = new URL(req.url ?? '/', 'http://proxy');
      let body: Buffer | undefined;
      if (MUTATING.has(method)) {
        const read = await readBody(req);
        if (read === 'too large') {
          refuse(res, method, url, undefined, `a body over ${String(DRY_RUN_PROXY_MAX_BODY_BYTES)} bytes`);
          return;
        }
        body = read;
      }
      if (ACTING.test(url.pathname)) {
        refuse(res, method, url, body, 'a subresource that acts (exec, attach, portforward, proxy)');
        return;
      }
      if (MUTATING.has(method)) {
        if (!dryRunAll(url)) {
          refuse(res, method, url, body, 'a write without dryRun=All');
          return;
        }
        if (method === 'DELETE' && body !== undefined && bodyUndoesDryRun(body)) {
          refuse(res, method, url, body, 'DeleteOptions without dryRun All');
          return;
        }
      }
      await forward(req, res, url, body);
    })().catch((err: unknown) => {
      if (!res.headersSent) status(res, 500, 'InternalError', `reconcilekit plan: ${(err as Error).message}`);
      else res.destroy();
    });
  });
  const refuseTunnel = (req: IncomingMessage, socket: Socket): void => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    refused.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      object: objectOf(url.pathname, undefined),
      reason: 'a connection upgrade (exec, attach, port-forward, a websocket watch)',
    });
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  };
  server.on('upgrade', refuseTunnel);
  server.on('connect', refuseTunnel);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${String(port)}`;
  const kc = new KubeConfig();
  const namespace = real.getContextObject(real.getCurrentContext())?.namespace;
  kc.loadFromOptions({
    clusters: [{ name: 'plan', server: url, skipTLSVerify: true }],
    users: [{ name: 'plan', token }],
    contexts: [
      { name: 'plan', cluster: 'plan', user: 'plan', ...(namespace === undefined ? {} : { namespace }) },
    ],
    currentContext: 'plan',
  });
  return {
    url,
    kubeconfig: kc.exportConfig(),
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** The dry-run proxy run on its own thread, so that nothing this thread does can stall or bypass it. */
export interface DryRunProxyThread {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** A kubeconfig (YAML) for the proxy, with its token. */
  readonly kubeconfig: string;
  /** Stops the proxy; resolves with every request it refused. */
  close(): Promise<RefusedWrite[]>;
}

/**
 * {@link serveDryRunProxy} on a worker thread: a planned entry that blocks its own thread (a
 * `spawnSync` child talking to the proxy, a busy loop) cannot stall the proxy or deadlock with it, and
 * the thread's HTTP modules are its own (the plan's guard over this thread's does not see them).
 */
export async function startDryRunProxy(real: KubeConfig): Promise<DryRunProxyThread> {
  if (real.getCurrentCluster() === null) {
    throw new InvalidConfigError('plan: the kubeconfig has no current cluster with a server to plan against');
  }
  const worker = new Worker(new URL('./dry-run-proxy-worker.js', import.meta.url), {
    workerData: { kubeconfig: real.exportConfig() },
  });
  const ready = await new Promise<{ url: string; kubeconfig: string }>((resolve, reject) => {
    worker.once('message', (m: { url: string; kubeconfig: string }) => {
      resolve(m);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      reject(new Error(`plan: the dry-run proxy exited (${String(code)}) before it listened`));
    });
  });
  worker.unref();
  return {
    ...ready,
    close: () =>
      new Promise<RefusedWrite[]>((resolve, reject) => {
        worker.once('message', (m: { refused: RefusedWrite[] }) => {
          resolve(m.refused);
        });
        worker.once('error', reject);
        worker.postMessage('close');
      }),
  };
}
