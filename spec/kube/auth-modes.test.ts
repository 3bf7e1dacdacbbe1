// Every kubeconfig auth mode against a TLS server (the embedded one with a generated CA): what reaches the
// server is recorded by its authenticate hook, which also plays the identity provider (accepted tokens).
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  mkdtempSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createNetServer, connect, type Server as NetServer, type Socket } from 'node:net';
import diagnosticsChannel from 'node:diagnostics_channel';
import { tmpdir } from 'node:os';
import tls from 'node:tls';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CertificateAuthority,
  startApiServer,
  type ApiServer,
  type AuthenticationRequest,
} from '../../lib/apiserver/index.js';
import { isUnauthorized } from '../../lib/kube/api-error.js';
import { makeKeepAliveApiClient } from '../../lib/kube/keep-alive-api.js';
import { inClusterKubeConfig } from '../../lib/kube/kube-config.js';
import { kubeConfigFromYaml, loadedKubeConfigFromYaml } from '../../lib/kube/kubeconfig-extras.js';
import type { LoadedKubeConfig } from '../../lib/kube/loaded-kube-config.js';
import { ObjectClient } from '../../lib/kube/object-client.js';

const CONFIGMAPS = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespace: 'default',
} as const;

let server: ApiServer;
let root: string;
let dir: string;
const tokens = new Set<string>();
const seen: AuthenticationRequest[] = [];
const clients: ObjectClient[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'rk-auth-modes-'));
  server = await startApiServer({
    tls: { clientCertificates: true, hosts: ['kubernetes.test'] },
    authenticate: (request) => {
      seen.push(request);
      const auth = request.headers.authorization ?? '';
      return auth.startsWith('Bearer ') && tokens.has(auth.slice(7));
    },
  });
});

afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  tokens.clear();
  seen.length = 0;
});

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** Which loader reads the kubeconfig: client-node's, or reconcilekit's own (no client-node). */
type Loader = 'client-node' | 'reconcilekit';

function makeKubeconfig(
  loader: Loader,
  user: Record<string, unknown>,
  cluster: Record<string, unknown> = {},
): KubeConfig | LoadedKubeConfig {
  const ca = server.certificateAuthority?.cert ?? '';
  return (loader === 'client-node' ? kubeConfigFromYaml : loadedKubeConfigFromYaml)(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'c', cluster: { server: server.url, 'certificate-authority-data': b64(ca), ...cluster } },
      ],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
}

function client(kc: KubeConfig | LoadedKubeConfig): ObjectClient {
  const c = new ObjectClient({ kubeConfig: kc });
  clients.push(c);
  return c;
}

function lastAuthorization(): string | undefined {
  return seen.at(-1)?.headers.authorization;
}

function script(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

function runs(counter: string): number {
  return existsSync(counter) ? Number(readFileSync(counter, 'utf8').trim()) : 0;
}

describe.each<Loader>(['client-node', 'reconcilekit'])(
  'kubeconfig auth modes over TLS (%s loader)',
  (loader) => {
    const kubeconfig = (user: Record<string, unknown>, cluster: Record<string, unknown> = {}) =>
      makeKubeconfig(loader, user, cluster);
    // Scripts, counters and token files of this loader's runs, apart from the other loader's.
    beforeAll(() => {
      dir = join(root, loader);
      mkdirSync(dir);
    });

    it('client certificate: a CA-signed one is accepted, one from another CA is not', async () => {
      const ca = server.certificateAuthority;
      if (ca === undefined) throw new Error('no CA');
      const alice = ca.issue({ commonName: 'alice', organizations: ['devs'], usages: ['client'] });
      const ok = client(
        kubeconfig({ 'client-certificate-data': b64(alice.cert), 'client-key-data': b64(alice.key) }),
      );
      await expect(ok.list(CONFIGMAPS)).resolves.toBeDefined();
      const mallory = new CertificateAuthority('other').issue({ commonName: 'mallory', usages: ['client'] });
      const bad = client(
        kubeconfig({ 'client-certificate-data': b64(mallory.cert), 'client-key-data': b64(mallory.key) }),
      );
      expect(isUnauthorized(await bad.list(CONFIGMAPS).catch((e: unknown) => e))).toBe(true);
      expect(seen.at(-1)?.clientCertificate).toBeUndefined();
    });

    it('TLS material is parsed once: the connections of the shared and the watch agents reuse one context', async () => {
      const ca = server.certificateAuthority;
      if (ca === undefined) throw new Error('no CA');
      const bob = ca.issue({ commonName: 'bob', usages: ['client'] });
      const c = client(
        kubeconfig({ 'client-certificate-data': b64(bob.cert), 'client-key-data': b64(bob.key) }),
      );
      let sockets = 0;
      const counted = (): void => {
        sockets += 1;
      };
      diagnosticsChannel.subscribe('net.client.socket', counted);
      const contexts = vi.spyOn(tls, 'createSecureContext');
      try {
        // Concurrent requests open several keep-alive connections; a watch opens one of its own.
        await Promise.all(Array.from({ length: 4 }, () => c.list(CONFIGMAPS)));
        const controller = new AbortController();
        const watching = c.watch(CONFIGMAPS, { signal: controller.signal }, () => undefined);
        await waitUntil(() => sockets >= 5);
        controller.abort();
        await watching;
        await c.list(CONFIGMAPS);
        expect(sockets).toBeGreaterThanOrEqual(5);
        // Node would make one context per connection from ca/cert/key: one for all of them here.
        expect(contexts).toHaveBeenCalledTimes(1);
      } finally {
        contexts.mockRestore();
        diagnosticsChannel.unsubscribe('net.client.socket', counted);
      }
    });

    it('bearer token, on ObjectClient and on client-node generated APIs', async () => {
      tokens.add('t0k3n');
      const kc = kubeconfig({ token: 't0k3n' });
      await expect(client(kc).list(CONFIGMAPS)).resolves.toBeDefined();
      expect(lastAuthorization()).toBe('Bearer t0k3n');
      const core = makeKeepAliveApiClient(client(kc), CoreV1Api);
      await expect(core.listNamespacedConfigMap({ namespace: 'default' })).resolves.toBeDefined();
    });

    it('token-file: re-read when the token rotates (401 → read again → retried)', async () => {
      const file = join(dir, 'token');
      writeFileSync(file, 'first\n');
      tokens.add('first');
      const c = client(kubeconfig({ 'token-file': file }));
      await c.list(CONFIGMAPS);
      expect(lastAuthorization()).toBe('Bearer first');
      writeFileSync(file, 'second\n');
      tokens.clear();
      tokens.add('second');
      await expect(c.list(CONFIGMAPS)).resolves.toBeDefined();
      expect(lastAuthorization()).toBe('Bearer second');
    });

    it('exec plugin with expirationTimestamp: reused until it expires, then run again', async () => {
      const counter = join(dir, 'exec-expiring.count');
      const plugin = script(
        'exec-expiring',
        `n=$(( $(cat ${counter} 2>/dev/null || echo 0) + 1 )); echo $n > ${counter}
exp=$(date -u -d "+16 seconds" +%Y-%m-%dT%H:%M:%SZ)
echo "{\\"apiVersion\\":\\"client.authentication.k8s.io/v1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"exp-$n\\",\\"expirationTimestamp\\":\\"$exp\\"}}"`,
      );
      tokens.add('exp-1');
      tokens.add('exp-2');
      const c = client(
        kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin } }),
      );
      await Promise.all([c.list(CONFIGMAPS), c.list(CONFIGMAPS), c.list(CONFIGMAPS)]);
      expect(runs(counter)).toBe(1); // concurrent callers share one run
      expect(lastAuthorization()).toBe('Bearer exp-1');
      // Valid 16 s, renewed 10 s early: after ~6 s it is due again.
      await new Promise((r) => setTimeout(r, 6_500));
      await c.list(CONFIGMAPS);
      expect(runs(counter)).toBe(2);
      expect(lastAuthorization()).toBe('Bearer exp-2');
    });

    it('exec plugin without an expiry: run once, and again only after a 401', async () => {
      const counter = join(dir, 'exec-forever.count');
      const plugin = script(
        'exec-forever',
        `n=$(( $(cat ${counter} 2>/dev/null || echo 0) + 1 )); echo $n > ${counter}
echo "{\\"apiVersion\\":\\"client.authentication.k8s.io/v1beta1\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":{\\"token\\":\\"forever-$n\\"}}"`,
      );
      tokens.add('forever-1');
      const c = client(
        kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: plugin } }),
      );
      for (let i = 0; i < 5; i++) await c.list(CONFIGMAPS);
      expect(runs(counter)).toBe(1);
      tokens.clear();
      tokens.add('forever-2'); // the provider revoked forever-1
      await expect(c.list(CONFIGMAPS)).resolves.toBeDefined();
      expect(runs(counter)).toBe(2);
      expect(lastAuthorization()).toBe('Bearer forever-2');
    });

    it('exec plugin returning a client certificate: sent as the TLS client certificate', async () => {
      const ca = server.certificateAuthority;
      if (ca === undefined) throw new Error('no CA');
      const cert = ca.issue({ commonName: 'exec-user', usages: ['client'] });
      const credential = join(dir, 'cert-credential.json');
      writeFileSync(
        credential,
        JSON.stringify({
          apiVersion: 'client.authentication.k8s.io/v1',
          kind: 'ExecCredential',
          status: { clientCertificateData: cert.cert, clientKeyData: cert.key },
        }),
      );
      const plugin = script('exec-cert', `cat ${credential}`);
      const c = client(
        kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin } }),
      );
      // No token is accepted: only the certificate can get this through.
      await expect(c.list(CONFIGMAPS)).resolves.toBeDefined();
      let seenWatch = false;
      const controller = new AbortController();
      const watching = c.watch(
        CONFIGMAPS,
        { signal: controller.signal, onOpen: () => (seenWatch = true) },
        () => undefined,
      );
      await waitUntil(() => seenWatch);
      controller.abort();
      await watching;
    });

    it('OIDC auth-provider: sends the id-token while it is valid', async () => {
      const jwt = [
        b64url({ alg: 'RS256', typ: 'JWT' }),
        b64url({ sub: 'oidc-user', exp: Math.floor(Date.now() / 1000) + 3600 }),
        'c2ln',
      ].join('.');
      tokens.add(jwt);
      const kc = kubeconfig({
        'auth-provider': {
          name: 'oidc',
          config: { 'id-token': jwt, 'client-id': 'k8s', 'idp-issuer-url': 'https://127.0.0.1:1/unused' },
        },
      });
      await expect(client(kc).list(CONFIGMAPS)).resolves.toBeDefined();
      expect(lastAuthorization()).toBe(`Bearer ${jwt}`);
    });

    it('proxy-url: lists and watches both go through the proxy', async () => {
      const proxy = await startConnectProxy();
      try {
        tokens.add('via-proxy');
        const c = client(kubeconfig({ token: 'via-proxy' }, { 'proxy-url': proxy.url }));
        await c.list(CONFIGMAPS);
        expect(proxy.connects).toBe(1);
        const events: string[] = [];
        const controller = new AbortController();
        const watching = c.watch(CONFIGMAPS, { signal: controller.signal }, (type, obj: KubernetesObject) => {
          events.push(`${type} ${obj.metadata?.name ?? ''}`);
        });
        await waitUntil(() => proxy.connects === 2);
        await c.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `proxied-${loader}`, namespace: 'default' },
        });
        await waitUntil(() => events.includes(`ADDED proxied-${loader}`));
        controller.abort();
        await watching;
        expect(proxy.connects).toBe(2); // the list's keep-alive connection was reused for create
      } finally {
        await proxy.close();
      }
    });

    it('tls-server-name: the certificate is checked against it, not the address', async () => {
      tokens.add('sni');
      const right = client(kubeconfig({ token: 'sni' }, { 'tls-server-name': 'kubernetes.test' }));
      await expect(right.list(CONFIGMAPS)).resolves.toBeDefined();
      const wrong = client(kubeconfig({ token: 'sni' }, { 'tls-server-name': 'elsewhere.test' }));
      await expect(wrong.list(CONFIGMAPS)).rejects.toThrow(/elsewhere\.test|altnames|Hostname/);
    });

    it('impersonation: user, groups (one header each), uid and extra', async () => {
      tokens.add('admin');
      const kc = kubeconfig({
        token: 'admin',
        as: 'bob',
        'as-groups': ['g1', 'g2'],
        'as-uid': 'uid-7',
        'as-user-extra': { 'scopes.example.com/x': ['read', 'write'] },
      });
      const check = (): void => {
        const h = seen.at(-1)?.headersDistinct ?? {};
        expect(h['impersonate-user']).toEqual(['bob']);
        expect(h['impersonate-group']).toEqual(['g1', 'g2']);
        expect(h['impersonate-uid']).toEqual(['uid-7']);
        expect(h['impersonate-extra-scopes.example.com%2fx']).toEqual(['read', 'write']);
      };
      await client(kc).list(CONFIGMAPS);
      check();
      await makeKeepAliveApiClient(client(kc), CoreV1Api).listNamespacedConfigMap({ namespace: 'default' });
      check();
    });

    it('in-cluster: token rotation is picked up, ca.crt is read once', async () => {
      const prefix = join(dir, 'pod');
      const sa = join(prefix, 'var/run/secrets/kubernetes.io/serviceaccount');
      mkdirSync(sa, { recursive: true });
      writeFileSync(join(sa, 'token'), 'pod-token-1');
      writeFileSync(join(sa, 'ca.crt'), server.certificateAuthority?.cert ?? '');
      writeFileSync(join(sa, 'namespace'), 'default');
      const url = new URL(server.url);
      const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
      process.env.KUBERNETES_SERVICE_HOST = url.hostname;
      process.env.KUBERNETES_SERVICE_PORT = url.port;
      let kc: KubeConfig | LoadedKubeConfig;
      try {
        if (loader === 'client-node') {
          const cn = new KubeConfig();
          cn.loadFromCluster(prefix);
          kc = cn;
        } else {
          kc = inClusterKubeConfig(process.env, prefix);
        }
      } finally {
        process.env.KUBERNETES_SERVICE_HOST = saved.host;
        process.env.KUBERNETES_SERVICE_PORT = saved.port;
        if (saved.host === undefined) delete process.env.KUBERNETES_SERVICE_HOST;
        if (saved.port === undefined) delete process.env.KUBERNETES_SERVICE_PORT;
      }
      tokens.add('pod-token-1');
      const c = client(kc);
      await c.list(CONFIGMAPS);
      expect(lastAuthorization()).toBe('Bearer pod-token-1');
      unlinkSync(join(sa, 'ca.crt')); // read once: later requests do not need it
      writeFileSync(join(sa, 'token'), 'pod-token-2');
      tokens.clear();
      tokens.add('pod-token-2');
      await expect(c.list(CONFIGMAPS)).resolves.toBeDefined();
      expect(lastAuthorization()).toBe('Bearer pod-token-2');
    });
  },
);

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

async function waitUntil(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A minimal HTTP CONNECT proxy on loopback that counts tunnels. */
async function startConnectProxy(): Promise<{ url: string; connects: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const state = { connects: 0 };
  const proxy: NetServer = createNetServer((socket) => {
    sockets.add(socket);
    socket.once('data', (head: Buffer) => {
      const match = /^CONNECT ([^:]+):(\d+) HTTP/.exec(head.toString('latin1'));
      if (match === null) {
        socket.end('HTTP/1.1 405 Method Not Allowed\r\n\r\n');
        return;
      }
      state.connects += 1;
      const upstream = connect(Number(match[2]), match[1] ?? '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    get connects() {
      return state.connects;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        proxy.close(() => {
          resolve();
        });
      }),
  };
}
