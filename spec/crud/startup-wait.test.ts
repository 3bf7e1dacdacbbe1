// While start() waits for its caches — the API server down, the list forbidden — the operator says what is
// wrong on every retry (kind, status code, what to fix) and /readyz says the same; nothing waits silently.
// Against the embedded server: a stopped one, and a 403 injected into the list and watch of the kind (the
// embedded server has no authorization; spec/real/startup-forbidden.real.test.ts has kube-apiserver's RBAC
// refuse it for real).
import { Writable } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';
import { Framework } from '../../lib/crud/framework.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import { createLogger } from '../../lib/observability/logger.js';
import { CacheSyncTimeoutError } from '../../lib/watch/informer.js';
import { REAL_BACKEND } from '../real/real-backend.js';
import { RecordingResource, type Widget } from './harness.js';

interface Line {
  level: string;
  message: string;
}

function capture(): { lines: Line[]; logger: ReturnType<typeof createLogger> } {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const text of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Line);
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'info', stream }) };
}

async function readyz(url: string | undefined): Promise<{ status: number; body: string }> {
  const res = await fetch(`${url ?? ''}/readyz`);
  return { status: res.status, body: await res.text() };
}

async function until<T>(
  what: string,
  ms: number,
  probe: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(REAL_BACKEND)('start-up says why it waits', () => {
  let server: ApiServer | undefined;
  let fw: Framework<Widget> | undefined;
  afterEach(async () => {
    await fw?.stop().catch(() => undefined);
    fw = undefined;
    await server?.close();
    server = undefined;
  });

  it('an API server that is down: a line per retry naming the kind and the fix, and /readyz says the same', async () => {
    server = await startApiServer({ host: '127.0.0.1', port: 0 });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(server.kubeconfig);
    await server.close(); // the kubeconfig now points at nothing
    server = undefined;
    const { lines, logger } = capture();
    fw = new Framework<Widget>({
      name: 'down',
      kubeConfig,
      resource: { apiVersion: 'v1', kind: 'ConfigMap' },
      resourceSets: [new ResourceSet<Widget>({ resources: [new RecordingResource()] })],
      cacheSyncTimeoutMs: 2_500,
      healthServer: { host: '127.0.0.1', port: 0 },
      logger,
    });
    const started = fw.start().catch((e: unknown) => e);
    const probe = await until('/readyz to name the problem', 3_000, async () => {
      const answer = await readyz(fw?.healthUrl).catch(() => undefined);
      return answer?.body.includes('cannot reach the API server') === true ? answer : undefined;
    });
    expect(probe.status).toBe(503);
    expect(probe.body).toMatch(
      /\[-\]cache-synced failed: caches not synced yet: watching ConfigMap \(v1\): cannot reach the API server \(GET \/api\/v1 failed: connect ECONNREFUSED 127\.0\.0\.1:\d+\); check KUBECONFIG's server address and that the server runs/,
    );
    const err = await started;
    expect(err).toBeInstanceOf(CacheSyncTimeoutError);
    // The error names the fix it found, not a generic list of things to check.
    expect((err as Error).message).toMatch(
      /^cache of ConfigMap not synced within 2500 ms: watching ConfigMap \(v1\): cannot reach the API server \(GET \/api\/v1 failed: connect ECONNREFUSED 127\.0\.0\.1:\d+\); check KUBECONFIG's server address and that the server runs$/,
    );
    const retries = lines.filter((l) => l.message.includes('cannot reach the API server'));
    // Retries at 0, 0.2, 0.6, 1.4 s (at most two lines a second): a line per retry while it waits, not one.
    expect(retries.length).toBeGreaterThanOrEqual(3);
    expect(retries[0]?.message).toMatch(/; retrying in 200 ms \(attempt 1, waiting for 0 s\)$/);
    expect(retries.at(-1)?.message).toMatch(/; retrying in \d+ ms \(attempt [3-9], waiting for [1-3] s\)$/);
  });

  it('a forbidden list: a warning per retry with the status code and the RBAC rule to grant, and /readyz says the same', async () => {
    server = await startApiServer({ host: '127.0.0.1', port: 0 });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(server.kubeconfig);
    const message =
      'configmaps is forbidden: User "system:serviceaccount:team-a:op" cannot list resource "configmaps" in API group "" in the namespace "team-a"';
    for (const verb of ['list', 'watch'] as const)
      server.faults.inject({ verb, resource: 'configmaps', namespace: 'team-a', status: 403, message });
    const { lines, logger } = capture();
    fw = new Framework<Widget>({
      name: 'forbidden',
      kubeConfig,
      resource: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'team-a' },
      resourceSets: [new ResourceSet<Widget>({ resources: [new RecordingResource()] })],
      cacheSyncTimeoutMs: 3_500,
      healthServer: { host: '127.0.0.1', port: 0 },
      logger,
    });
    const started = fw.start().catch((e: unknown) => e);
    const rule =
      'ConfigMap (v1) in namespace team-a: 403 Forbidden: RBAC forbids list and watch of configmaps in namespace team-a: grant the verbs list and watch on resource "configmaps" of API group "" to the operator\'s identity (a Role in team-a or a ClusterRole; reconcilekit generate rbac writes it)';
    const probe = await until('/readyz to name the RBAC rule', 4_000, async () => {
      const answer = await readyz(fw?.healthUrl).catch(() => undefined);
      return answer?.body.includes('RBAC forbids') === true ? answer : undefined;
    });
    expect(probe.status).toBe(503);
    expect(probe.body).toContain(
      `[-]cache-synced failed: caches not synced yet: watch failing: ${rule} (server: ${message})`,
    );
    expect(probe.body).toContain(`[-]watches-healthy failed: watch failing: ${rule}`);
    const err = await started;
    expect(err).toBeInstanceOf(CacheSyncTimeoutError);
    expect((err as CacheSyncTimeoutError).message).toBe(
      `cache of ConfigMap not synced within 3500 ms: ${rule} (server: ${message})`,
    );
    expect((err as CacheSyncTimeoutError).problem).toBe(`${rule} (server: ${message})`);
    const warnings = lines.filter((l) => l.level === 'warn' && l.message.startsWith('list/watch failed: '));
    // Backoff 0.8, 1.6 s: a line for each of the three tries in 3.5 s, each with the attempt number.
    expect(warnings.length).toBeGreaterThanOrEqual(3);
    for (const [i, w] of warnings.entries()) {
      expect(w.message).toContain(rule);
      expect(w.message).toMatch(new RegExp(`\\(attempt ${i + 1}, not synced for \\d s\\)$`));
    }
  });
});
