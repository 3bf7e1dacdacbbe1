// Measures the cost of one GET through client-node's default request path versus reconcilekit's shared
// keep-alive agent, against the embedded API server, over plain HTTP and through a local TLS front.
// Not a test: run by hand (see docs/http-client.md), e.g.
//   npx tsc -p tsconfig.json --outDir /tmp/rk-measure && node /tmp/rk-measure/spec/kube/measure-get-latency.js
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startApiServer } from '../../lib/apiserver/index.js';
import { makeKeepAliveApiClient } from '../../lib/kube/keep-alive-api.js';
import { ObjectClient } from '../../lib/kube/object-client.js';

const N = Number(process.env.N ?? 500);

let connections = 0;

async function time(label: string, fn: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 50; i++) await fn(); // warm-up (JIT, discovery caches, first connection)
  connections = 0;
  const samples: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const opened = connections;
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((s, x) => s + x, 0) / samples.length;
  const p50 = samples[Math.floor(samples.length / 2)] ?? 0;
  const p99 = samples[Math.floor(samples.length * 0.99)] ?? 0;
  console.log(
    `${label.padEnd(58)} mean ${mean.toFixed(3)} ms  p50 ${p50.toFixed(3)} ms  p99 ${p99.toFixed(3)} ms  TLS handshakes ${opened}`,
  );
}

/** A TLS-terminating front for the embedded server (which speaks plain HTTP), with a throwaway cert. */
async function tlsFront(target: URL): Promise<{ url: string; ca: Buffer; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'rk-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(join(dir, 'cert.pem'));
  const backend = new http.Agent({ keepAlive: true });
  const server = https.createServer({ cert, key: readFileSync(join(dir, 'key.pem')) }, (req, res) => {
    const up = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
        agent: backend,
      },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    req.pipe(up);
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    ca: cert,
    close: () =>
      new Promise<void>((r) => {
        backend.destroy();
        server.closeAllConnections();
        server.close(() => {
          r();
        });
      }),
  };
}

const apiserver = await startApiServer({ host: '127.0.0.1', port: 0 });
const plain = new KubeConfig();
plain.loadFromString(apiserver.kubeconfig);
const seed = new ObjectClient({ kubeConfig: plain });
await seed.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe', namespace: 'default' } });
seed.close();

const front = await tlsFront(new URL(apiserver.url));
const tls = new KubeConfig();
tls.loadFromClusterAndUser(
  { name: 'tls', server: front.url, caData: front.ca.toString('base64'), skipTLSVerify: false },
  { name: 'u', token: 'measure' },
);

for (const [name, kc] of [
  ['plain HTTP', plain],
  ['TLS', tls],
] as const) {
  console.log(`--- ${name} (${kc.getCurrentCluster()?.server ?? ''}), N=${N}`);
  const args = { name: 'probe', namespace: 'default' };
  const defaultApi = kc.makeApiClient(CoreV1Api);
  await time('client-node default path (kc.makeApiClient(CoreV1Api))', () =>
    defaultApi.readNamespacedConfigMap(args),
  );
  const client = new ObjectClient({ kubeConfig: kc });
  const keepAliveApi = makeKeepAliveApiClient(client, CoreV1Api);
  await time('client-node API on the shared keep-alive agent', () =>
    keepAliveApi.readNamespacedConfigMap(args),
  );
  const ref = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespace: 'default',
    name: 'probe',
  };
  await time('reconcilekit ObjectClient.get (shared keep-alive agent)', () => client.get(ref));
  client.close();
}
await front.close();
await apiserver.close();
