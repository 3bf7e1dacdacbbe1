// Fault injection: status answers, Retry-After, times, probability, delays, removal.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api } from './support/http.js';
import { E2E, startTarget, type Target } from './support/target.js';

let target: Target;
let url: string;
const CM = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  if (E2E) return; // these checks drive the embedded server over raw HTTP
  target = await startTarget();
  url = target.url;
});

afterEach(() => {
  target.server?.faults.clear();
});

afterAll(async () => {
  if (E2E) return;
  await target.close();
});

describe.skipIf(E2E)('faults', () => {
  it('answers an injected 429 with Retry-After, only for matching requests and only `times` times', async () => {
    target.server!.faults.inject({
      verb: 'list',
      resource: 'configmaps',
      status: 429,
      retryAfterSeconds: 3,
      times: 2,
    });
    expect((await api(url, 'GET', '/api/v1/namespaces/default/secrets')).status).toBe(200);
    const first = await api(url, 'GET', CM);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('3');
    expect(first.body).toMatchObject({
      kind: 'Status',
      reason: 'TooManyRequests',
      code: 429,
      details: { retryAfterSeconds: 3 },
    });
    expect((await api(url, 'GET', CM)).status).toBe(429);
    expect((await api(url, 'GET', CM)).status).toBe(200);
  });

  it('matches namespace and name, and stops when removed', async () => {
    await api(url, 'POST', CM, { metadata: { name: 'target' } });
    await api(url, 'POST', CM, { metadata: { name: 'other' } });
    const handle = target.server!.faults.inject({
      verb: 'update',
      namespace: 'default',
      name: 'target',
      status: 409,
    });
    const got = await api(url, 'GET', `${CM}/target`);
    expect((await api(url, 'PUT', `${CM}/target`, got.body)).status).toBe(409);
    const other = await api(url, 'GET', `${CM}/other`);
    expect((await api(url, 'PUT', `${CM}/other`, other.body)).status).toBe(200);
    handle.remove();
    expect((await api(url, 'PUT', `${CM}/target`, got.body)).status).toBe(200);
  });

  it('never fires at probability 0 and delays requests by delayMs', async () => {
    target.server!.faults.inject({ resource: 'configmaps', status: 500, probability: 0 });
    expect((await api(url, 'GET', CM)).status).toBe(200);
    target.server!.faults.clear();
    target.server!.faults.inject({ verb: 'get', resource: 'namespaces', delayMs: 300 });
    const started = Date.now();
    expect((await api(url, 'GET', '/api/v1/namespaces/default')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('answers 503 ServiceUnavailable', async () => {
    target.server!.faults.inject({ status: 503, retryAfterSeconds: 1, times: 1 });
    const r = await api(url, 'POST', CM, { metadata: { name: 'unavailable' } });
    expect(r.status).toBe(503);
    expect(r.body.reason).toBe('ServiceUnavailable');
    expect((await api(url, 'GET', `${CM}/unavailable`)).status).toBe(404);
  });
});
