import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, type Clock } from './clock.js';
import type { ApiServerCore, ApiServerLog } from './core.js';
import { BackgroundControllers } from './background-controllers.js';
import { ConnectionGuard } from './connection-guard.js';
import { crdToType } from './crd-types.js';
import { Faults } from './faults.js';
import { DEFAULT_MAX_BODY_BYTES } from './http-io.js';
import {
  DEFAULT_MAX_MUTATING_REQUESTS_IN_FLIGHT,
  DEFAULT_MAX_REQUESTS_IN_FLIGHT,
  InFlightLimit,
} from './in-flight-limit.js';
import { formatTime } from './json.js';
import { buildKubeconfig } from './kubeconfig.js';
import { Journal } from './journal.js';
import { recordOf } from './persistence.js';
import { Registry } from './registry.js';
import { createRouter } from './router.js';
import { ApiServerConfigError, isLoopbackHost } from './server-config-error.js';
import { DEFAULT_MAX_CONNECTIONS, serverLimits, type ServerLimitOptions } from './server-limits.js';
import { ObjectStore } from './store.js';
import { ANONYMOUS, type ReviewAuthentication, type UserInfo } from './handlers/review.js';
import {
  bearerMatches,
  buildAuthenticator,
  clientIdentity,
  constantTimeEqual,
  type AuthenticationRequest,
} from './tls/authentication.js';
import { CertificateAuthority, type CertificateAndKey } from './tls/certificate-authority.js';
import { DEFAULT_WATCH_TOTAL_BUFFER_BYTES, WatchHub } from './watch-hub.js';
import { DEFAULT_WATCH_BUFFER_BYTES, type WatchStream } from './watch-stream.js';
import { convertObjects } from './webhooks/crd-conversion.js';
import type { WebhookServiceResolver } from './webhooks/webhook-endpoint.js';

/** Default listen address: loopback only. */
export const DEFAULT_HOST = '127.0.0.1';
/** Default port: 0 = any free port. */
export const DEFAULT_PORT = 0;
/** Default interval of periodic watch BOOKMARKs (when the client allows them). */
export const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;
/** Namespaces that exist at start, as on a fresh cluster. */
export const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** The user a request bearing the server's `token` is (`kubectl auth whoami`), like the admin certificate. */
export const TOKEN_USER: UserInfo = {
  username: 'reconcilekit-admin',
  groups: ['system:masters', 'system:authenticated'],
};

/** Pending connections the kernel may queue for accept (it caps the value at net.core.somaxconn). */
const LISTEN_BACKLOG = 4096;

/** The hosts a generated serving certificate names besides the bound host. */
export const DEFAULT_TLS_HOSTS = ['127.0.0.1', 'localhost', '::1'];

/** TLS settings of the embedded server (`tls: true` is `{}`). */
export interface ApiServerTlsOptions {
  /**
   * Accept client certificates signed by the server's CA as credentials (user = CN, groups = O, as
   * kube-apiserver reads them), and put an admin client certificate in the generated kubeconfig instead
   * of no credential. Default false: the loopback server needs no credential unless `token` is set.
   */
  clientCertificates?: boolean;
  /** Extra DNS names / IPs of the serving certificate (e.g. a `tls-server-name`). Default: DEFAULT_TLS_HOSTS + host. */
  hosts?: readonly string[];
  /** The CA that signs the serving (and client) certificates. Default: a new one, generated at start. */
  certificateAuthority?: CertificateAuthority;
}

export interface ApiServerOptions extends ServerLimitOptions {
  /** Interface to bind; default DEFAULT_HOST (loopback: the server has no real authorization). */
  host?: string;
  /** Port; default DEFAULT_PORT (0 = any free port, read it from `url`). */
  port?: number;
  /**
   * When set, every request (except health and /version) needs `Authorization: Bearer <token>`, else 401
   * (compared in constant time). An empty string is refused: it would look like a token and protect nothing.
   */
  token?: string;
  /**
   * Allow a non-loopback `host` with no authentication (no `token`, client certificates or `authenticate`):
   * anyone who reaches the interface may then read and write everything. Default false: such a start
   * throws {@link ApiServerConfigError}.
   */
  insecure?: boolean;
  /**
   * Serve HTTPS with a CA and serving certificate generated at start (node:crypto; see
   * `CertificateAuthority`); the kubeconfig then carries the CA data instead of insecure-skip-tls-verify.
   * Default false (plain http, loopback).
   */
  tls?: boolean | ApiServerTlsOptions;
  /**
   * Extra authentication: called for a request that no `token` or client certificate accepted; true lets
   * it in, false answers 401. With it (or `token`, or client certificates) set, anonymous requests get 401.
   * Lets tests play an identity provider (rotate accepted tokens, record credentials). Default none.
   */
  authenticate?: (request: AuthenticationRequest) => boolean;
  /**
   * File to persist objects and the resourceVersion counter in (a snapshot, with an append-only log beside
   * it as `<dataFile>.log-<n>`, mode 0600); a write is answered only after its log record is fsynced, so
   * state, acknowledged writes included, survives a restart or a SIGKILL. Default none (memory only).
   */
  dataFile?: string;
  /**
   * Log bytes after which the log is folded into a new snapshot (in the background; also at least the size
   * of the last snapshot, so compaction costs O(1) per written byte); default DEFAULT_COMPACT_MIN_LOG_BYTES.
   */
  compactLogBytes?: number;
  /** Events kept per resource type for watch resumption; default DEFAULT_WATCH_HISTORY_SIZE. */
  watchHistorySize?: number;
  /** Bytes a slow watcher may have queued before its watch is ended with 410; default DEFAULT_WATCH_BUFFER_BYTES. */
  watchBufferBytes?: number;
  /** Bytes all watches together may have queued; past it the slowest are closed. Default DEFAULT_WATCH_TOTAL_BUFFER_BYTES. */
  watchTotalBufferBytes?: number;
  /** Interval of periodic BOOKMARK events; default DEFAULT_BOOKMARK_INTERVAL_MS. */
  bookmarkIntervalMs?: number;
  /**
   * Serve watch-list (`sendInitialEvents` on a watch, and the `k8s.io/initial-events-end` bookmark after the
   * initial events of a watch from no resourceVersion or "0"), as kube-apiserver with its WatchList feature
   * gate on (the default since 1.32). false plays a server with the gate off: `sendInitialEvents` is refused
   * with 422, as kube-apiserver `--feature-gates=WatchList=false` does. Default true.
   */
  watchList?: boolean;
  /** Largest accepted request body; default DEFAULT_MAX_BODY_BYTES (3 MiB, like kube-apiserver). */
  maxBodyBytes?: number;
  /**
   * Play kube-controller-manager's serviceaccount controller and root-ca-cert-publisher: every namespace
   * (those at start included) gets a `default` ServiceAccount and a `kube-root-ca.crt` ConfigMap holding
   * the server's CA (`ca.crt`, empty without `tls`), recreated when deleted. Default false: objects that
   * appear in every namespace change what lists and watches of ServiceAccounts and ConfigMaps return.
   */
  namespaceDefaults?: boolean;
  /**
   * Play the deployment controller's status writes for Deployments whose Pods never run (no scheduler or
   * kubelet here): `observedGeneration` and the `Available` condition (True at 0 replicas), so `kubectl
   * rollout status` and `kubectl wait --for=condition=Available` finish for a 0-replica Deployment.
   * Default false: the extra status write is an extra watch event for whoever watches Deployments.
   */
  deploymentStatus?: boolean;
  /**
   * Where a webhook configuration's or a CRD conversion's Service reference is served: the embedded
   * server runs no Pods, so the process that serves the webhook says where it listens (return an
   * `https://` URL, the Service's path appended). Webhooks configured with a `url` need nothing. Default:
   * every Service reference fails as an unknown Service (failurePolicy decides what that means).
   */
  resolveWebhookService?: WebhookServiceResolver;
  /** Time source (creation/deletion timestamps, Table ages); default the system clock. */
  clock?: Clock;
  /** Random source for fault probabilities; default Math.random. */
  random?: () => number;
  /** Log sink; default silent. The server never logs on its own. */
  log?: ApiServerLog;
  /** Closes the server when aborted (same as `close()`); default none. */
  signal?: AbortSignal;
}

/** A running embedded API server. */
export interface ApiServer {
  /** Base URL, e.g. `http://127.0.0.1:38121` (`https://…` with `tls`). */
  readonly url: string;
  /** The CA that signed the serving certificate (issue client certificates with it); undefined without tls. */
  readonly certificateAuthority: CertificateAuthority | undefined;
  /** A kubeconfig (YAML) pointing kubectl and client-node at this server. */
  readonly kubeconfig: string;
  /** Writes `kubeconfig` to a file. */
  writeKubeconfig(path: string): void;
  /** Fault injection: `faults.inject(rule)` → handle with `remove()`; `faults.clear()`. */
  readonly faults: Faults;
  /** Ends open watches, frees the port, flushes the data file. Idempotent. */
  close(): Promise<void>;
}

/** Starts an embedded Kubernetes-compatible API server. */
export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  checkSecurityOptions(options);
  const clock = options.clock ?? systemClock;
  const log: ApiServerLog = options.log ?? (() => undefined);
  const registry = new Registry();
  const hub = new WatchHub(options.watchTotalBufferBytes ?? DEFAULT_WATCH_TOTAL_BUFFER_BYTES);
  const faults = new Faults(options.random);
  const dataFile = options.dataFile;
  const persisted = dataFile === undefined ? undefined : Journal.recover({ path: dataFile, log }).state;
  let journal: Journal | undefined;
  // Seed the counter from the clock so RVs stay monotonic across restarts without a data file.
  const initialRv = Math.max(persisted?.rv ?? 0, Date.now() * 1000);
  let closed = false;
  const store: ObjectStore = new ObjectStore({
    initialRv,
    ...(options.watchHistorySize === undefined ? {} : { historySize: options.watchHistorySize }),
    onEvent: (event) => {
      hub.dispatch(event);
      if (controllers.observe(event)) core.kick();
      journal?.append(recordOf(event));
    },
    onDrop: (typeKey) => journal?.append({ op: 'drop', t: typeKey, rv: store.currentRv }),
  });
  let kickScheduled = false;
  const tls = options.tls === true ? {} : options.tls === false ? undefined : options.tls;
  const ca = tls === undefined ? undefined : (tls.certificateAuthority ?? new CertificateAuthority());
  const clientCertificates = tls?.clientCertificates === true;
  const core: ApiServerCore = {
    registry,
    store,
    hub,
    faults,
    clock,
    log,
    settings: {
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      watchBufferBytes: options.watchBufferBytes ?? DEFAULT_WATCH_BUFFER_BYTES,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_INTERVAL_MS,
      watchList: options.watchList !== false,
      ...(options.namespaceDefaults === true ? { namespaceDefaults: { caPem: ca?.cert ?? '' } } : {}),
      ...(options.deploymentStatus === true ? { deploymentStatus: true } : {}),
    },
    durable: () => journal?.durable() ?? Promise.resolve(),
    kick: () => {
      if (kickScheduled || closed) return;
      kickScheduled = true;
      setImmediate(() => {
        kickScheduled = false;
        if (closed) return;
        try {
          controllers.run();
        } catch (e) {
          log('error', 'background controllers failed', { error: String(e) });
        }
        if (controllers.pending) core.kick();
      });
    },
  };
  const review = reviewAuthentication(options.token, clientCertificates);
  const resolveService = options.resolveWebhookService;
  core.webhooks = {
    ...(resolveService === undefined ? {} : { resolveService }),
    identify: (ctx) => review.identify(ctx),
    convert: (type, objects, toVersion) => convertObjects(core, resolveService, type, objects, toVersion),
  };
  const controllers = new BackgroundControllers(core);
  if (persisted) {
    const crds = persisted.objects['apiextensions.k8s.io/customresourcedefinitions'] ?? [];
    for (const crd of crds) registry.register(crdToType(crd));
    for (const [key, objects] of Object.entries(persisted.objects))
      for (const obj of objects) store.load(key, obj);
  }
  if (dataFile !== undefined) {
    journal = await Journal.start(
      {
        path: dataFile,
        log,
        ...(options.compactLogBytes === undefined ? {} : { compactMinLogBytes: options.compactLogBytes }),
      },
      () => store.entries(),
      () => store.currentRv,
    );
  }
  for (const name of DEFAULT_NAMESPACES) {
    if (store.get('/namespaces', undefined, name)) continue;
    store.create('/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name,
        uid: crypto.randomUUID(),
        creationTimestamp: formatTime(clock()),
        labels: { 'kubernetes.io/metadata.name': name },
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  }
  faults.onDropRule = (rule) => {
    for (const stream of hub.all()) {
      if (
        rule.dropWatchAfterMs !== undefined &&
        Faults.matches(rule, { verb: 'watch', ...stream.options.coordinates })
      ) {
        scheduleDrop(stream, rule.dropWatchAfterMs);
      }
    }
  };
  let hostPort = '';
  const authenticate = buildAuthenticator({
    token: options.token,
    clientCertificates,
    hook: options.authenticate,
  });
  const connections = new ConnectionGuard({
    maxTotal: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxUnauthenticated: options.maxUnauthenticatedConnections ?? Number.POSITIVE_INFINITY,
  });
  const router = createRouter(core, {
    authenticate,
    hostPort: () => hostPort,
    review,
    connections,
    inFlight: new InFlightLimit(
      options.maxRequestsInFlight ?? DEFAULT_MAX_REQUESTS_IN_FLIGHT,
      options.maxMutatingRequestsInFlight ?? DEFAULT_MAX_MUTATING_REQUESTS_IN_FLIGHT,
    ),
    privileged: (req) => review.identifyRequest(req).groups.includes('system:masters'),
  });
  const bindHost = options.host ?? DEFAULT_HOST;
  const server: Server =
    tls === undefined || ca === undefined
      ? createServer(serverLimits(options), router)
      : createHttpsServer(
          {
            ...ca.issue({
              commonName: 'reconcilekit-apiserver',
              hosts: [...new Set([...DEFAULT_TLS_HOSTS, bindHost, ...(tls.hosts ?? [])])].filter(
                (h) => h !== '0.0.0.0' && h !== '::',
              ),
              usages: ['server'],
            }),
            ca: ca.cert,
            requestCert: clientCertificates,
            rejectUnauthorized: false, // an untrusted or missing certificate is anonymous, then 401
            ...serverLimits(options),
          },
          router,
        );
  server.keepAliveTimeout = 65_000;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    connections.accept(socket);
  });
  // A request past its headers or request timeout, or one that does not parse: answer and close for good
  // (a half-close alone leaves a trickling client's connection open for as long as it keeps sending).
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const status =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT'
        ? '408 Request Timeout'
        : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`, () => socket.destroy());
    setTimeout(() => socket.destroy(), 1000).unref();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Go's listeners (kube-apiserver's) ask for the kernel's somaxconn; Node's default, 511, drops SYNs
    // (a second's retransmit for the client) as soon as connections arrive faster than they are accepted.
    server.listen({ port: options.port ?? DEFAULT_PORT, host: bindHost, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Out of file descriptors (EMFILE on accept) and the like: logged, never an uncaught 'error' event.
  server.on('error', (e) => {
    log('error', 'apiserver socket error', { error: String(e) });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  hostPort = `${host}:${address.port}`;
  const url = `${ca === undefined ? 'http' : 'https'}://${hostPort}`;
  const admin: CertificateAndKey | undefined = clientCertificates
    ? ca?.issue({ commonName: 'reconcilekit-admin', organizations: ['system:masters'], usages: ['client'] })
    : undefined;
  const kubeconfig = buildKubeconfig(url, options.token, 'default', {
    ...(ca === undefined ? {} : { caData: ca.cert }),
    ...(admin === undefined ? {} : { clientCertificate: admin }),
  });
  // Recover from a data file: controllers finish deletions that were in flight.
  if (persisted) {
    controllers.observeAll();
    core.kick();
  }
  log('info', 'apiserver listening', { url });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      closed = true;
      controllers.close();
      hub.endAll();
      let pending = 2;
      const done = (): void => {
        if (--pending === 0) resolve();
      };
      void (journal?.close() ?? Promise.resolve()).catch(() => undefined).then(done);
      server.close(done);
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
    });
    return closing;
  };
  if (options.signal) {
    if (options.signal.aborted) await close();
    else options.signal.addEventListener('abort', () => void close(), { once: true });
  }
  return {
    url,
    certificateAuthority: ca,
    kubeconfig,
    faults,
    writeKubeconfig: (path) => {
      writeFileSync(path, kubeconfig, { mode: 0o600 });
      // The mode above applies only to a new file: one left from an earlier run keeps its own.
      chmodSync(path, 0o600);
    },
    close,
  };
}

/** Refuses an empty token and an unauthenticated server on a non-loopback interface (unless `insecure`). */
function checkSecurityOptions(options: ApiServerOptions): void {
  if (options.token === '') {
    throw new ApiServerConfigError(
      'token is empty: give a non-empty token, or leave it unset for a server without authentication',
    );
  }
  const host = options.host ?? DEFAULT_HOST;
  const tls = typeof options.tls === 'object' ? options.tls : undefined;
  const authenticated =
    options.token !== undefined || tls?.clientCertificates === true || options.authenticate !== undefined;
  if (!authenticated && !isLoopbackHost(host) && options.insecure !== true) {
    throw new ApiServerConfigError(
      `host ${host} is not loopback and no authentication is configured: anyone reaching it could read and ` +
        'write everything. Set a token (or client certificates), bind 127.0.0.1, or pass insecure: true',
    );
  }
}

/** Identities for the review APIs: a trusted client certificate, else the server's token, else anonymous. */
function reviewAuthentication(
  token: string | undefined,
  clientCertificates: boolean,
): ReviewAuthentication & { identifyRequest: (req: IncomingMessage) => UserInfo } {
  const identifyRequest = (req: IncomingMessage): UserInfo => {
    const identity = clientCertificates ? clientIdentity(req) : undefined;
    if (identity !== undefined) {
      return { username: identity.user, groups: [...identity.groups, 'system:authenticated'] };
    }
    if (token !== undefined && bearerMatches(req.headers.authorization, token)) return TOKEN_USER;
    return ANONYMOUS;
  };
  return {
    identifyRequest,
    identify: (ctx) => identifyRequest(ctx.req),
    tokenUser: (candidate) =>
      token !== undefined && constantTimeEqual(candidate, token) ? TOKEN_USER : undefined,
  };
}

function scheduleDrop(stream: WatchStream, ms: number): void {
  stream.endAfter(ms);
}
