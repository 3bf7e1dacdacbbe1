// What KubeTransport puts on the wire: the request line under a server URL with a path prefix, the query,
// a path that needs encoding, and a JSON body whose Content-Length counts bytes, not characters.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadedKubeConfigFromYaml } from '../../lib/kube/kubeconfig-extras.js';
import { KubeTransport } from '../../lib/kube/kube-transport.js';

interface Seen {
  method: string;
  url: string;
  length: string | undefined;
  body: string;
}

let server: Server;
let transport: KubeTransport;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        length: req.headers['content-length'],
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.setHeader('Content-Type', 'application/json');
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  transport = new KubeTransport({
    kubeConfig: loadedKubeConfigFromYaml(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'c',
            cluster: { server: `http://127.0.0.1:${port}/prefix/`, 'insecure-skip-tls-verify': true },
          },
        ],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    ),
  });
});

afterAll(async () => {
  transport.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('KubeTransport request line and body', () => {
  it('keeps the server path prefix and encodes the query (undefined values left out)', async () => {
    await transport.request({
      method: 'GET',
      path: '/api/v1/namespaces/default/configmaps',
      query: { labelSelector: 'app in (a, b),tier!=x', limit: 5, continue: undefined, watch: false },
    });
    expect(seen.at(-1)?.url).toBe(
      '/prefix/api/v1/namespaces/default/configmaps?labelSelector=app+in+%28a%2C+b%29%2Ctier%21%3Dx&limit=5&watch=false',
    );
  });

  it('encodes a path that is not printable ASCII, as a URL would', async () => {
    await transport.request({ method: 'GET', path: '/api/v1/namespaces/é t/configmaps' });
    expect(seen.at(-1)?.url).toBe('/prefix/api/v1/namespaces/%C3%A9%20t/configmaps');
  });

  it('sends a JSON body with its length in bytes', async () => {
    const body = { metadata: { name: 'café' }, data: { greeting: 'grüße 👋' } };
    await expect(
      transport.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body }),
    ).resolves.toEqual({ ok: true });
    const last = seen.at(-1);
    expect(last?.method).toBe('POST');
    expect(JSON.parse(last?.body ?? '')).toEqual(body);
    expect(Number(last?.length)).toBe(Buffer.byteLength(JSON.stringify(body)));
  });
});
