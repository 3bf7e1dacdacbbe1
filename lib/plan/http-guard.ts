import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { NotPlannableError } from './planning-client.js';
import type * as http from 'node:http';
import type * as https from 'node:https';
import type * as net from 'node:net';
import { nodeHttp, nodeHttps, nodeNet } from '../util/node-http.js';

/**
 * What the guard knows about the object being planned: the API server (the only host a dry-run write may
 * go to) and the writes it refused.
 */
export interface GuardScope {
  /** `host:port` of the API server. */
  readonly apiServer: string;
  /** One line per refused request (`POST https://…/api/v1/…`). */
  readonly refused: string[];
  /** Errors user code reported without throwing (an informer handler's failed call). */
  readonly errors?: unknown[];
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const scope = new AsyncLocalStorage<GuardScope>();
/** Where requests made outside any planned object's pass are checked, while a command-wide guard is on. */
let outside: GuardScope | undefined;
/**
 * While set (`reconcilekit plan`), every request and every connection to a host other than the API server
 * is refused, whatever its method or protocol: a GET with side effects or an `http2` session elsewhere is a
 * change the plan cannot see.
 */
let otherHostsRefused = false;

/** How a refused request to a host other than the API server starts (`CONNECT host:port`, `GET http://…`). */
export const OTHER_HOST_REFUSAL = 'another host than the API server';

/** True when a scope's refusals include a request to another host (not only writes to the API server). */
export function refusedOtherHost(refused: readonly string[]): boolean {
  return refused.some((r) => r.endsWith(`(${OTHER_HOST_REFUSAL})`));
}

function current(): GuardScope | undefined {
  return scope.getStore() ?? outside;
}

type RequestFn = typeof http.request;
let installed = 0;
let originals: { http: RequestFn; https: RequestFn; fetch: typeof fetch } | undefined;

/** undici's dispatcher base (what every Agent, Pool and Client dispatches through) and its `dispatch`. */
interface UndiciDispatch {
  proto: { dispatch: DispatchFn };
  original: DispatchFn;
}
type DispatchFn = (this: unknown, opts: DispatchOptions, handler: unknown) => boolean;
interface DispatchOptions {
  origin?: string | URL;
  path?: string;
  method?: string;
  body?: unknown;
}
let undiciDispatch: UndiciDispatch | undefined;

/**
 * The dispatcher base of the undici that `@kubernetes/client-node` 2.x sends its requests through (its own
 * `fetch` and connection pool, which neither node:http nor the global `fetch` see). Undefined when that
 * undici cannot be loaded here.
 */
function undiciDispatcherBase(): UndiciDispatch['proto'] | undefined {
  try {
    const require = createRequire(import.meta.url);
    const clientNode = require.resolve('@kubernetes/client-node');
    const undici = require(require.resolve('undici', { paths: [clientNode] })) as {
      Agent?: { prototype: object };
    };
    const proto =
      undici.Agent === undefined ? undefined : (Object.getPrototypeOf(undici.Agent.prototype) as unknown);
    if (
      typeof proto !== 'object' ||
      proto === null ||
      typeof (proto as { dispatch?: unknown }).dispatch !== 'function'
    ) {
      return undefined;
    }
    return proto as UndiciDispatch['proto'];
  } catch {
    return undefined;
  }
}

/** undici's dispatch, checked as `http.request` is: a refused request throws before anything is sent. */
function guardDispatch(original: DispatchFn): DispatchFn {
  return function guardedDispatch(this: unknown, opts: DispatchOptions, handler: unknown): boolean {
    const s = current();
    if (s !== undefined && opts.origin !== undefined) {
      const url = new URL(opts.path ?? '/', opts.origin);
      check(opts.method, url);
      if ((opts.method ?? '').toUpperCase() === 'DELETE' && deleteBodyRefused(opts.body)) {
        throw refuseDeleteBody(s, url);
      }
    }
    return original.call(this, opts, handler);
  };
}

function hostOf(url: URL): string {
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  return `${url.hostname}:${port}`;
}

/**
 * Throws {@link NotPlannableError} (and records it in the current scope) when a request made while an
 * object is planned would change something: a mutating method to any host other than the API server, or
 * to the API server without `dryRun=All`. Outside a plan's scope every request passes.
 */
function check(method: string | undefined, url: URL): void {
  const s = current();
  if (s === undefined) return;
  const m = (method ?? 'GET').toUpperCase();
  const other = hostOf(url) !== s.apiServer;
  if (!MUTATING.has(m) && !(other && otherHostsRefused)) return;
  if (!other && url.searchParams.getAll('dryRun').includes('All')) return;
  const what = `${m} ${url.origin}${url.pathname}`;
  if (!MUTATING.has(m)) {
    s.refused.push(`${what} (${OTHER_HOST_REFUSAL})`);
    throw new NotPlannableError(
      `${what}: a request to ${OTHER_HOST_REFUSAL} was refused (a plan reads the cluster only)`,
    );
  }
  s.refused.push(what);
  throw new NotPlannableError(
    hostOf(url) === s.apiServer
      ? `${what}: a write without dryRun=All, outside the planning client (its own client?), was refused`
      : `${what}: a request changing something outside the cluster was refused`,
  );
}

/** The URL and method of an `http.request(url?, options?, cb?)` call. */
function requestTarget(protocol: string, args: unknown[]): { method: string | undefined; url: URL } {
  let url: URL | undefined;
  let options: http.RequestOptions = {};
  const [a, b] = args;
  if (typeof a === 'string' || a instanceof URL) {
    url = new URL(a);
    if (typeof b === 'object' && b !== null) options = b;
  } else if (typeof a === 'object' && a !== null) options = a;
  if (url === undefined) {
    const host = options.hostname ?? options.host ?? 'localhost';
    const port = options.port === undefined || options.port === null ? '' : `:${String(options.port)}`;
    url = new URL(`${options.protocol ?? protocol}//${host.includes(':') ? `[${host}]` : host}${port}`);
  }
  if (options.path !== undefined && options.path !== null) url = new URL(options.path, url);
  return { method: options.method, url };
}

/**
 * A DELETE's body (DeleteOptions) wins over its query on the API server: one that passed the query check
 * must carry dryRun "All" in its body too, else it is refused before anything is sent.
 */
function deleteBodyRefused(body: unknown): boolean {
  const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : undefined;
  if (text === undefined || text.trim() === '') return false;
  try {
    const options = JSON.parse(text) as { dryRun?: unknown };
    return !(Array.isArray(options.dryRun) && options.dryRun.includes('All'));
  } catch {
    return true;
  }
}

function refuseDeleteBody(s: GuardScope, url: URL): NotPlannableError {
  const what = `DELETE ${url.origin}${url.pathname}`;
  s.refused.push(what);
  return new NotPlannableError(
    `${what}: DeleteOptions without dryRun All, outside the planning client, was refused`,
  );
}

function guardRequest(original: RequestFn, protocol: string): RequestFn {
  return function guarded(this: unknown, ...args: unknown[]) {
    const s = current();
    if (s === undefined) return (original as (...a: unknown[]) => http.ClientRequest).apply(this, args);
    const { method, url } = requestTarget(protocol, args);
    check(method, url);
    const req = (original as (...a: unknown[]) => http.ClientRequest).apply(this, args);
    if ((method ?? '').toUpperCase() !== 'DELETE') return req;
    // Headers and body go out at the first write/end: check the body there, before anything is sent.
    const write = req.write.bind(req) as (...a: unknown[]) => boolean;
    const end = req.end.bind(req) as (...a: unknown[]) => http.ClientRequest;
    let checked = false;
    const gate = (chunk: unknown): boolean => {
      if (checked) return true;
      checked = true;
      if (typeof chunk === 'function' || chunk === undefined || chunk === null) return true;
      if (!deleteBodyRefused(chunk)) return true;
      req.destroy(refuseDeleteBody(s, url));
      return false;
    };
    req.write = ((chunk: unknown, ...rest: unknown[]) =>
      gate(chunk) && write(chunk, ...rest)) as typeof req.write;
    req.end = ((chunk?: unknown, ...rest: unknown[]) =>
      gate(chunk) ? end(chunk, ...rest) : req) as typeof req.end;
    return req;
  };
}

function guardFetch(original: typeof fetch): typeof fetch {
  return function guardedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    if (current() !== undefined) {
      try {
        const url = new URL(input instanceof Request ? input.url : input);
        const method = init?.method ?? (input instanceof Request ? input.method : undefined);
        check(method, url);
        const s = current();
        if (s !== undefined && method?.toUpperCase() === 'DELETE' && deleteBodyRefused(init?.body)) {
          throw refuseDeleteBody(s, url);
        }
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    return original(input, init);
  };
}

type ConnectFn = (this: net.Socket, ...args: unknown[]) => net.Socket;
let originalConnect: ConnectFn | undefined;

/** `host:port` (or `unix:path`) of a `Socket#connect(...)` call, in any of its argument forms. */
function connectTarget(args: unknown[]): string {
  // net.connect() hands the socket its arguments already normalized, as one array.
  const first: unknown = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (typeof first === 'object' && first !== null) {
    const o = first as { path?: unknown; host?: unknown; port?: unknown };
    if (typeof o.path === 'string') return `unix:${o.path}`;
    return `${bare(typeof o.host === 'string' ? o.host : 'localhost')}:${String(o.port)}`;
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return `unix:${first}`;
  return `${bare(typeof args[1] === 'string' ? args[1] : 'localhost')}:${String(first)}`;
}

function bare(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Every TCP, TLS and IPC connection this thread opens goes through `Socket#connect` (node:http, undici and
 * `fetch`, `http2.connect`, `net.connect`, `tls.connect`): while other hosts are refused, one to anything
 * but the API server is refused before it is opened (no DNS lookup, no byte sent). The socket fails as a
 * refused connection does, on the next tick, so the caller's error handling sees it.
 */
function guardConnect(original: ConnectFn): ConnectFn {
  return function guardedConnect(this: net.Socket, ...args: unknown[]): net.Socket {
    const s = current();
    if (s === undefined || !otherHostsRefused) return original.apply(this, args);
    const target = connectTarget(args);
    if (target === s.apiServer.replace(/[[\]]/g, '')) return original.apply(this, args);
    const what = `CONNECT ${target}`;
    s.refused.push(`${what} (${OTHER_HOST_REFUSAL})`);
    const err = new NotPlannableError(
      `${what}: a connection to ${OTHER_HOST_REFUSAL} (http2, a socket, …) was refused before it was opened`,
    );
    process.nextTick(() => this.destroy(err));
    return this;
  };
}

/** The built-in modules' objects, whose `request` the guard replaces (`syncBuiltinESMExports` shows it to ES imports). */
const patchable = {
  http: nodeHttp as { request: typeof http.request },
  https: nodeHttps as { request: typeof https.request },
};

/**
 * Installs the guard over outgoing HTTP (node:http and node:https `request`, global `fetch`, and the undici
 * dispatcher client-node 2.x sends through) until the
 * returned function is called. Nested installs share one guard; the last uninstall restores the originals.
 * With `everywhere`, requests outside any planned object's pass are checked too and their refusals
 * recorded there (`reconcilekit plan`: an entry module that starts its operator on import writes nothing).
 */
export function installHttpGuard(
  everywhere?: GuardScope,
  options: { readonly refuseOtherHosts?: boolean } = {},
): () => void {
  const previous = outside;
  const previousOtherHosts = otherHostsRefused;
  if (everywhere !== undefined) outside = everywhere;
  if (options.refuseOtherHosts === true) {
    otherHostsRefused = true;
    if (originalConnect === undefined) {
      const proto = nodeNet.Socket.prototype as unknown as { connect: ConnectFn };
      originalConnect = proto.connect;
      proto.connect = guardConnect(originalConnect);
    }
  }
  if (installed === 0) {
    originals = { http: patchable.http.request, https: patchable.https.request, fetch: globalThis.fetch };
    patchable.http.request = guardRequest(originals.http, 'http:');
    patchable.https.request = guardRequest(originals.https, 'https:');
    globalThis.fetch = guardFetch(originals.fetch);
    syncBuiltinESMExports();
    const proto = undiciDispatcherBase();
    if (proto !== undefined) {
      undiciDispatch = { proto, original: proto.dispatch };
      proto.dispatch = guardDispatch(proto.dispatch);
    }
  }
  installed++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (everywhere !== undefined) outside = previous;
    if (options.refuseOtherHosts === true) {
      otherHostsRefused = previousOtherHosts;
      if (!otherHostsRefused && originalConnect !== undefined) {
        (nodeNet.Socket.prototype as unknown as { connect: ConnectFn }).connect = originalConnect;
        originalConnect = undefined;
      }
    }
    installed--;
    if (installed === 0 && originals !== undefined) {
      patchable.http.request = originals.http;
      patchable.https.request = originals.https;
      globalThis.fetch = originals.fetch;
      originals = undefined;
      syncBuiltinESMExports();
      if (undiciDispatch !== undefined) {
        undiciDispatch.proto.dispatch = undiciDispatch.original;
        undiciDispatch = undefined;
      }
    }
  };
}

/** Runs `fn` with `s` as the current plan scope (every request it makes, however deep, is checked). */
export function withinScope<T>(s: GuardScope, fn: () => T): T {
  return scope.run(s, fn);
}

/** The scope of the object being planned, if any. */
export function currentScope(): GuardScope | undefined {
  return scope.getStore();
}

/** The API server's `host:port` of a server URL. */
export function apiServerHost(server: URL): string {
  return hostOf(server);
}
