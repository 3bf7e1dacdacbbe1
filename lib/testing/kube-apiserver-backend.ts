import { createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildKubeconfig, CertificateAuthority } from '../apiserver/index.js';
import { resolveEnvtestAssets, type EnvtestAssets } from './envtest-assets.js';
import { SupervisedProcess } from './supervised-process.js';

/** How long etcd plus kube-apiserver may take to become ready. 120 s: a cold start on 2 busy cores. */
export const DEFAULT_KUBE_APISERVER_START_TIMEOUT_MS = 120_000;
/** User name of the generated admin client certificate (group `system:masters`). */
export const KUBE_APISERVER_ADMIN_USER = 'reconcilekit-admin';
const POLL_MS = 200;

/** Options of {@link startKubeApiServer}. */
export interface KubeApiServerOptions {
  /** Directory holding `etcd` and `kube-apiserver`. Default: `$KUBEBUILDER_ASSETS`. */
  assetsDir?: string;
  /** Fixed ports (each checked free first). Default: free loopback ports picked at start. */
  ports?: { etcd?: number; etcdPeer?: number; apiServer?: number };
  /** Extra kube-apiserver flags (`--name=value`), appended after reconcilekit's. Default none. */
  apiServerFlags?: readonly string[];
  /** Start-up limit; default {@link DEFAULT_KUBE_APISERVER_START_TIMEOUT_MS}. */
  startTimeoutMs?: number;
  /** Aborts the start-up (both processes are stopped). */
  signal?: AbortSignal;
}

/** A running etcd + kube-apiserver pair on loopback, with an admin kubeconfig. */
export interface KubeApiServer {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** Admin kubeconfig (CA data + a `system:masters` client certificate). */
  readonly kubeconfig: string;
  /** The CA of the serving and client certificates. */
  readonly certificateAuthority: CertificateAuthority;
  readonly assets: EnvtestAssets;
  /**
   * Stops kube-apiserver (SIGTERM) and starts it again on the same port with the same flags, keeping etcd
   * and its data; resolves once it is ready again. Clients see their connections drop and their watches
   * end; a watch resumed from a resourceVersion older than the new watch cache gets 410 Gone, so this is
   * how a test (or the bench) makes operators relist on a real server.
   */
  restartApiServer(): Promise<void>;
  /** Stops kube-apiserver, then etcd, and removes the scratch directory. Idempotent. */
  close(): Promise<void>;
}

/** Thrown when etcd or kube-apiserver does not come up: says which, why, and shows its last output. */
export class KubeApiServerStartError extends Error {
  override readonly name = 'KubeApiServerStartError';
}

/** True for a {@link KubeApiServerStartError}. */
export function isKubeApiServerStartError(e: unknown): e is KubeApiServerStartError {
  return e instanceof KubeApiServerStartError;
}

/** A port that is free on 127.0.0.1 right now (0 → picked by the kernel); rejects when it is in use. */
export function reservePort(port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE'
          ? new KubeApiServerStartError(
              `port ${String(port)} on 127.0.0.1 is in use: stop what listens there, or leave the port unset so a free one is picked`,
            )
          : err,
      );
    });
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const picked = typeof address === 'object' && address !== null ? address.port : port;
      server.close(() => {
        resolve(picked);
      });
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function get(url: string, tls: https.RequestOptions = {}): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get(url, { ...tls, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => {
      resolve(0);
    });
  });
}

function plainGet(url: string): Promise<number> {
  return fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
    (res) => res.status,
    () => 0,
  );
}

async function waitUntil(
  what: string,
  proc: SupervisedProcess,
  ready: () => Promise<boolean>,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (;;) {
    signal?.throwIfAborted();
    if (proc.ended) {
      const out = proc.output();
      const inUse = /address already in use/i.test(out);
      throw new KubeApiServerStartError(
        `${what} exited during start-up${inUse ? ' (a port it needs is in use: free it, or let the ports be picked)' : ''}; its last output:\n${out}`,
      );
    }
    if (await ready()) return;
    if (Date.now() > deadline) {
      throw new KubeApiServerStartError(
        `${what} was not ready in time (raise startTimeoutMs on a slow machine); its last output:\n${proc.output()}`,
      );
    }
    await sleep(POLL_MS);
  }
}

/**
 * Starts etcd and kube-apiserver from `KUBEBUILDER_ASSETS` (the envtest convention, so setup-envtest's
 * binaries work too) on free loopback ports, with TLS, a generated CA, serving certificate, service-account
 * key and admin client certificate. Both processes run under a watchdog that stops them if this process
 * dies, and `close()` stops them; a failed start stops whatever did start.
 */
export async function startKubeApiServer(options: KubeApiServerOptions = {}): Promise<KubeApiServer> {
  const assets = resolveEnvtestAssets(options.assetsDir);
  const deadline = Date.now() + (options.startTimeoutMs ?? DEFAULT_KUBE_APISERVER_START_TIMEOUT_MS);
  const dir = mkdtempSync(join(tmpdir(), 'reconcilekit-kube-apiserver-'));
  const processes: SupervisedProcess[] = [];
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const proc of [...processes].reverse()) await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    })();
    return closing;
  };
  try {
    const etcdPort = await reservePort(options.ports?.etcd);
    const peerPort = await reservePort(options.ports?.etcdPeer);
    const apiPort = await reservePort(options.ports?.apiServer);
    const ca = new CertificateAuthority('reconcilekit-envtest-ca');
    const serving = ca.issue({
      commonName: 'kube-apiserver',
      hosts: [
        '127.0.0.1',
        'localhost',
        '10.0.0.1',
        'kubernetes',
        'kubernetes.default',
        'kubernetes.default.svc',
      ],
      usages: ['server'],
    });
    const admin = ca.issue({
      commonName: KUBE_APISERVER_ADMIN_USER,
      organizations: ['system:masters'],
      usages: ['client'],
    });
    const serviceAccountKey = new CertificateAuthority('service-accounts').key;
    const file = (name: string, content: string): string => {
      const path = join(dir, name);
      writeFileSync(path, content, { mode: 0o600 });
      return path;
    };
    const caFile = file('ca.crt', ca.cert);
    const certFile = file('apiserver.crt', serving.cert);
    const keyFile = file('apiserver.key', serving.key);
    // kube-apiserver verifies tokens with a public key (PKIX) and signs with the private one (PKCS#8).
    const saKeyFile = file('sa.key', serviceAccountKey);
    const saPublicKeyFile = file(
      'sa.pub',
      createPublicKey(serviceAccountKey).export({ type: 'spki', format: 'pem' }).toString(),
    );
    const etcdUrl = `http://127.0.0.1:${String(etcdPort)}`;
    const peerUrl = `http://127.0.0.1:${String(peerPort)}`;
    const etcd = new SupervisedProcess('etcd', assets.etcd, [
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=default=${peerUrl}`,
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ]);
    processes.push(etcd);
    await waitUntil(
      'etcd',
      etcd,
      async () => (await plainGet(`${etcdUrl}/health`)) === 200,
      deadline,
      options.signal,
    );
    const url = `https://127.0.0.1:${String(apiPort)}`;
    const apiServerArgs = [
      `--etcd-servers=${etcdUrl}`,
      `--secure-port=${String(apiPort)}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--cert-dir=${join(dir, 'certs')}`,
      `--tls-cert-file=${certFile}`,
      `--tls-private-key-file=${keyFile}`,
      `--client-ca-file=${caFile}`,
      `--service-account-key-file=${saPublicKeyFile}`,
      `--service-account-signing-key-file=${saKeyFile}`,
      '--service-account-issuer=https://kubernetes.default.svc',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--authorization-mode=RBAC',
      '--disable-admission-plugins=ServiceAccount',
      '--allow-privileged=true',
      '--profiling=false',
      ...(options.apiServerFlags ?? []),
    ];
    const tls = { ca: ca.cert, cert: admin.cert, key: admin.key };
    const launch = async (until: number, signal: AbortSignal | undefined): Promise<SupervisedProcess> => {
      const apiServer = new SupervisedProcess('kube-apiserver', assets.kubeApiServer, apiServerArgs);
      processes.push(apiServer);
      await waitUntil(
        'kube-apiserver',
        apiServer,
        async () =>
          (await get(`${url}/readyz`, tls)) === 200 &&
          (await get(`${url}/api/v1/namespaces/default`, tls)) === 200,
        until,
        signal,
      );
      return apiServer;
    };
    let apiServer = await launch(deadline, options.signal);
    const restartApiServer = async (): Promise<void> => {
      if (closing !== undefined) throw new Error('restartApiServer: the backend is closed');
      await apiServer.stop();
      processes.splice(processes.indexOf(apiServer), 1);
      apiServer = await launch(
        Date.now() + (options.startTimeoutMs ?? DEFAULT_KUBE_APISERVER_START_TIMEOUT_MS),
        undefined,
      );
    };
    const kubeconfig = buildKubeconfig(url, undefined, 'default', {
      caData: ca.cert,
      clientCertificate: admin,
    });
    return { url, kubeconfig, certificateAuthority: ca, assets, restartApiServer, close };
  } catch (e) {
    await close();
    throw e;
  }
}
