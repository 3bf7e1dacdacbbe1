// Thousands of malformed requests: every answer must be a Status with a 4xx/5xx code, the server
// must stay up, and no stored object may change.
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetCrd } from './support/fixtures.js';
import { api } from './support/http.js';
import { E2E, startTarget, type Target } from './support/target.js';

const REQUESTS = 2500;
let target: Target;
let url: string;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Req {
  method: string;
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

interface Res {
  status: number;
  body: string;
}

function send(r: Req): Promise<Res> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(r.headers ?? {}) };
    if (r.body !== undefined && headers['Content-Type'] === undefined)
      headers['Content-Type'] = 'application/json';
    // Node's client sends DELETE/OPTIONS bodies without framing unless the length is explicit.
    if (r.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(r.body));
    const req = request(url + r.path, { method: r.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.setTimeout(5000, () => {
      req.destroy(new Error(`timeout: ${r.method} ${r.path}`));
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

/** Snapshot of everything observable: every object of the fuzzed types, and the list resourceVersion. */
async function snapshot(): Promise<string> {
  const parts: unknown[] = [];
  for (const path of [
    '/api/v1/configmaps',
    '/api/v1/namespaces',
    '/apis/example.com/v1/widgets',
    '/api/v1/secrets',
  ]) {
    parts.push((await api(url, 'GET', path)).body);
  }
  return JSON.stringify(parts);
}

function generator(random: () => number): () => Req {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const junk = (n: number): string => {
    const chars = 'abcXYZ019-_.~!*()%$&=+,;:@/?#[] {}"\'\\\u00e9\u4e2d';
    let s = '';
    const len = 1 + Math.floor(random() * n);
    for (let i = 0; i < len; i++) s += chars[Math.floor(random() * chars.length)] ?? '';
    return s;
  };
  const bytes = (n: number): Buffer =>
    Buffer.from(Array.from({ length: 1 + Math.floor(random() * n) }, () => Math.floor(random() * 256)));
  const collections = [
    '/api/v1/namespaces/default/configmaps',
    '/apis/example.com/v1/namespaces/default/widgets',
  ];
  const objects = [
    '/api/v1/namespaces/default/configmaps/keep',
    '/apis/example.com/v1/namespaces/default/widgets/keep',
  ];
  const badSelectors = [
    'a in (',
    '!!a',
    '=x',
    'a=(b',
    'a notin b',
    'a,,b=',
    'a=b=c',
    'in in in',
    '(',
    'a!b',
    junk(3) + ' in (' + junk(3),
  ];
  const cases: (() => Req)[] = [
    // unknown paths under the API prefixes
    () => ({
      method: pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
      path: `/apis/${encodeURIComponent(junk(8))}/v9/${encodeURIComponent(junk(6))}`,
    }),
    () => ({
      method: 'GET',
      path: `/api/v1/${pick(['nodes', 'zzz', 'configmap', 'Configmaps'])}/${encodeURIComponent(junk(5))}`,
    }),
    () => ({ method: 'GET', path: `/${encodeURIComponent(junk(10))}` }),
    () => ({
      method: 'GET',
      path: `/api/v1/namespaces/default/configmaps/keep/${pick(['status', 'scale', 'exec', junk(4)])}`,
    }),
    // malformed bodies on creates
    () => ({ method: 'POST', path: pick(collections), body: bytes(200) }),
    () => ({ method: 'POST', path: pick(collections), body: '{"metadata":{"name":"x"' + junk(5) }),
    () => ({
      method: 'POST',
      path: pick(collections),
      body: pick(['[]', '1', '"s"', 'null', 'true', '[{"a":1}]']),
    }),
    () => ({
      method: 'POST',
      path: pick(collections),
      body: JSON.stringify({ apiVersion: 'v9', kind: 'Nope', metadata: { name: 'n' } }),
    }),
    () => ({ method: 'POST', path: pick(collections), body: JSON.stringify({ metadata: 'not-an-object' }) }),
    () => ({ method: 'POST', path: pick(collections), body: JSON.stringify({ metadata: { name: 'keep' } }) }),
    () => ({
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: JSON.stringify({ metadata: { name: 'UPPER_' + junk(4) } }),
    }),
    () => ({
      method: 'POST',
      path: '/api/v1/namespaces/nowhere/configmaps',
      body: JSON.stringify({ metadata: { name: 'n' } }),
    }),
    // updates that cannot apply
    () => ({
      method: 'PUT',
      path: pick(objects),
      body: JSON.stringify({ metadata: { name: 'other-name', resourceVersion: '1' } }),
    }),
    () => ({ method: 'PUT', path: pick(objects), body: bytes(100) }),
    () => ({
      method: 'PUT',
      path: objects[0]!,
      body: JSON.stringify({ metadata: { name: 'keep', resourceVersion: '1' }, data: { a: junk(4) } }),
    }),
    () => ({
      method: 'PUT',
      path: '/api/v1/namespaces/default/configmaps/absent',
      body: JSON.stringify({ metadata: { name: 'absent' } }),
    }),
    // patches that cannot apply
    () => ({
      method: 'PATCH',
      path: pick(objects),
      headers: { 'Content-Type': 'application/json-patch+json' },
      body: JSON.stringify([
        { op: 'test', path: '/metadata/name', value: junk(6) + '#' },
        { op: pick(['add', 'remove', 'replace']), path: '/' + junk(4), value: junk(3) },
      ]),
    }),
    () => ({
      method: 'PATCH',
      path: pick(objects),
      headers: { 'Content-Type': 'application/json-patch+json' },
      body: JSON.stringify({ op: 'add' }),
    }),
    () => ({
      method: 'PATCH',
      path: pick(objects),
      headers: { 'Content-Type': 'application/json-patch+json' },
      body: JSON.stringify([{ op: junk(4), path: 'no-slash' }]),
    }),
    () => ({
      method: 'PATCH',
      path: pick(objects),
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: bytes(50),
    }),
    () => ({
      method: 'PATCH',
      path: pick(objects),
      headers: {
        'Content-Type': pick([
          'text/plain',
          'application/xml',
          'application/x-' + Math.floor(random() * 1e6).toString(36),
          'application/json',
        ]),
      },
      body: '{}',
    }),
    () => ({
      method: 'PATCH',
      path: objects[1]!,
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
      body: '{"spec":{}}',
    }),
    () => ({
      method: 'PATCH',
      path: pick(objects),
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: 'a: b',
    }),
    () => ({
      method: 'PATCH',
      path: pick(objects),
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { resourceVersion: '1' } }),
    }),
    () => ({
      method: 'PATCH',
      path: pick(objects),
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { name: 'renamed' } }),
    }),
    // selectors, list and watch options
    () => ({
      method: 'GET',
      path: `${pick(collections)}?labelSelector=${encodeURIComponent(pick(badSelectors))}`,
    }),
    () => ({
      method: 'GET',
      path: `${pick(collections)}?fieldSelector=${encodeURIComponent(pick(['spec.' + junk(3) + '=1', 'status.x=1', '=', 'metadata.name']))}`,
    }),
    () => ({ method: 'GET', path: `${pick(collections)}?limit=${pick(['-1', 'abc', '1.5'])}` }),
    () => ({ method: 'GET', path: `${pick(collections)}?limit=1&continue=${encodeURIComponent(junk(12))}` }),
    () => ({
      method: 'GET',
      path: `${pick(collections)}?watch=true&resourceVersion=${encodeURIComponent(pick(['abc', '-1', '1.5', junk(4)]))}`,
    }),
    () => ({ method: 'GET', path: `${pick(collections)}?watch=true&timeoutSeconds=${pick(['-5', 'x'])}` }),
    () => ({ method: 'GET', path: `${pick(collections)}?watch=true&sendInitialEvents=true` }),
    () => ({ method: 'GET', path: `${pick(collections)}?resourceVersionMatch=${pick(['Exact', 'Bogus'])}` }),
    // methods, headers, deletes
    () => ({
      method: pick(['OPTIONS', 'PROPFIND', 'TRACE', 'MKCOL']),
      path: pick([...collections, ...objects, '/api']),
    }),
    () => ({
      method: 'GET',
      path: pick(objects),
      headers: { Accept: pick(['application/xml', 'text/html', 'image/png']) },
    }),
    () => ({ method: 'DELETE', path: pick(objects), body: bytes(40) }),
    () => ({ method: 'DELETE', path: pick(objects), body: JSON.stringify({ propagationPolicy: junk(5) }) }),
    () => ({
      method: 'DELETE',
      path: pick(objects),
      body: JSON.stringify({ preconditions: { uid: 'wrong' } }),
    }),
    () => ({
      method: 'DELETE',
      path: '/api/v1/namespaces/default/configmaps/absent-' + encodeURIComponent(junk(4)),
    }),
    () => ({ method: 'POST', path: pick(objects), body: '{}' }),
    () => ({ method: 'PUT', path: pick(collections), body: '{}' }),
  ];
  return () => pick(cases)();
}

function isStatus(text: string): boolean {
  try {
    const body = JSON.parse(text) as { kind?: unknown; status?: unknown; code?: unknown };
    return body.kind === 'Status' && body.status === 'Failure' && typeof body.code === 'number';
  } catch {
    return false;
  }
}

beforeAll(async () => {
  if (E2E) return; // these checks drive the embedded server over raw HTTP
  target = await startTarget({ maxBodyBytes: 64 * 1024 });
  url = target.url;
  await api(url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd());
  await api(url, 'POST', '/api/v1/namespaces/default/configmaps', {
    metadata: { name: 'keep', labels: { a: 'b' } },
    data: { k: 'v' },
  });
  await api(url, 'POST', '/apis/example.com/v1/namespaces/default/widgets', {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'keep' },
    spec: { size: 2, tags: ['x'] },
  });
});

afterAll(async () => {
  if (E2E) return;
  agent.destroy();
  await target.close();
});

describe.skipIf(E2E)('fuzz', () => {
  it(`answers ${REQUESTS} malformed requests with 4xx/5xx Status objects and changes nothing`, async () => {
    const before = await snapshot();
    const next = generator(rng(20261121));
    const failures: string[] = [];
    const batch = 16;
    for (let i = 0; i < REQUESTS; i += batch) {
      const requests = Array.from({ length: Math.min(batch, REQUESTS - i) }, next);
      const answers = await Promise.all(requests.map(send));
      answers.forEach((a, j) => {
        const r = requests[j]!;
        // An unserved group/version is Go's plain-text NotFound on kube-apiserver too.
        const pageNotFound = a.status === 404 && a.body === '404 page not found\n';
        if (a.status < 400 || a.status > 599 || (r.method !== 'HEAD' && !isStatus(a.body) && !pageNotFound)) {
          failures.push(`${r.method} ${r.path} → ${a.status} ${a.body.slice(0, 120)}`);
        }
      });
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(await snapshot()).toBe(before);
  }, 60_000);

  it('survives garbage on the wire and oversized bodies', async () => {
    for (const garbage of [
      'GARBAGE\r\n\r\n',
      'GET / HTTP/9.9\r\n\r\n',
      '\u0000\u0001\u0002\r\n\r\n',
      'POST /api HTTP/1.1\r\nContent-Length: -5\r\n\r\n',
    ]) {
      await new Promise<void>((resolve) => {
        const socket = connect(Number(new URL(url).port), '127.0.0.1', () => socket.end(garbage));
        socket.on('data', () => undefined);
        socket.on('close', () => {
          resolve();
        });
        socket.on('error', () => {
          resolve();
        });
      });
    }
    const big = await send({
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: 'x'.repeat(70 * 1024),
    });
    expect(big.status).toBe(413);
    expect(isStatus(big.body)).toBe(true);
    expect((await api(url, 'GET', '/healthz')).status).toBe(200);
  });
});
