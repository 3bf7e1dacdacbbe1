// Certificate rotation under load: 1,000 admission requests through the embedded API server to the
// operator's webhook server while its serving certificate is renewed every 50 requests — none fails,
// every one reaches the validator, and new TLS handshakes get the new certificate. Plus mounted
// certificates (cert-manager's Secret files) read again when they change.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';
import {
  MountedCertificates,
  SelfSignedCertificates,
  WebhookCertificateIssuer,
  WebhookServer,
  validator,
  webhookManifests,
} from '../../lib/webhooks/index.js';

const ca = new WebhookCertificateIssuer('rotation-ca');
const certificates = new SelfSignedCertificates({ issuer: ca, hosts: ['127.0.0.1'], validityMs: 3600_000 });
let calls = 0;
const handler = validator({
  group: '',
  versions: ['v1'],
  resource: 'configmaps',
  validateCreate: () => {
    calls++;
    return undefined;
  },
});
let server: WebhookServer;
let api: ApiServer;

beforeAll(async () => {
  server = new WebhookServer({
    handlers: [handler],
    certificate: certificates.current(),
    host: '127.0.0.1',
    port: 0,
  });
  await server.start();
  certificates.watch((c) => {
    server.setCertificate(c);
  });
  api = await startApiServer();
  const manifests = webhookManifests([handler], {
    name: 'rotation',
    target: { url: server.url ?? '' },
    caBundle: certificates.caBundle(),
  });
  const res = await fetch(`${api.url}/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(manifests.validating),
  });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await api.close();
  await server.stop();
});

function servedSerial(): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}/`, { method: 'GET', ca: ca.cert, agent: false }, (res) => {
      const socket = res.socket as import('node:tls').TLSSocket;
      resolve(socket.getPeerCertificate().serialNumber);
      res.resume();
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serving certificate rotation', () => {
  it(
    'answers 1,000 admission requests while the certificate rotates every 50, none failing',
    { timeout: 180_000 },
    async () => {
      const before = await servedSerial();
      let next = 0;
      let rotations = 0;
      const statuses: number[] = [];
      const worker = async (): Promise<void> => {
        for (;;) {
          const i = next++;
          if (i >= 1000) return;
          if (i > 0 && i % 50 === 0) {
            certificates.rotate();
            rotations++;
          }
          const res = await fetch(`${api.url}/api/v1/namespaces/default/configmaps?dryRun=All`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` } }),
          });
          statuses.push(res.status);
          await res.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      expect(rotations).toBe(19);
      expect(statuses.filter((s) => s !== 201)).toEqual([]);
      expect(statuses).toHaveLength(1000);
      expect(calls).toBe(1000);
      const after = await servedSerial();
      expect(after).not.toBe(before);
      expect(new X509Certificate(certificates.current().cert).serialNumber).toBe(after);
    },
  );

  it('reads mounted certificate files again when they change, and skips a pair that does not match', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rk-mounted-'));
    const certFile = join(dir, 'tls.crt');
    const keyFile = join(dir, 'tls.key');
    const first = ca.issue({ commonName: 'a', hosts: ['127.0.0.1'], validityMs: 3600_000 });
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    const mounted = new MountedCertificates({ certFile, keyFile, pollMs: 20 });
    expect(mounted.current().cert).toBe(first.cert);
    const seen: string[] = [];
    const stop = mounted.watch((c) => seen.push(c.cert));
    const second = ca.issue({ commonName: 'b', hosts: ['127.0.0.1'], validityMs: 3600_000 });
    writeFileSync(certFile, second.cert); // key not yet swapped: skipped
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([]);
    writeFileSync(keyFile, second.key);
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([second.cert]);
    stop();
    rmSync(dir, { recursive: true, force: true });
  });
});
