// A replica whose shard Lease lapses for a moment takes back the same keys. Three Controller replicas on
// the embedded API server; replica a reaches the server through a proxy that, for a few seconds, answers
// every request for a's shard Lease with 503 (an API server that cannot serve its renewals). a's renew
// deadline passes, its fence closes and its term ends; when the Lease answers again a joins again under
// the same shard id, because its Lease still names it and the sharder did not declare it dead. Checks:
// a's term ended and it wrote nothing while out, no object changed shard (keys moved = 0), changes made
// meanwhile are worked by their owner after the rejoin, and no key was in a pass on two replicas at once.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Controller } from '../../lib/controller/controller.js';
import type { ReconcileRequest } from '../../lib/controller/reconcile-types.js';
import { createLogger } from '../../lib/observability/logger.js';
import { shardLabels } from '../../lib/sharding/shard-labels.js';
import { buildKubeconfig } from '../../lib/apiserver/index.js';
import { ref, startHarness, widget, WIDGET, type Harness, type Widget } from '../crud/harness.js';

// A lease well above the outage: the sharder must not judge a dead while a's Lease is unreachable.
const timing = { leaseDurationMs: 12_000, renewDeadlineMs: 3_000, retryPeriodMs: 400 };
const OUTAGE_MS = 4_500;
const N = 30;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Pass {
  replica: string;
  key: string;
  n: unknown;
  start: number;
  end: number;
}

/** Forwards to `target`; while `failing`, answers requests whose path matches with 503. */
async function leaseOutageProxy(
  target: string,
  matches: (path: string) => boolean,
): Promise<{ url: string; server: Server; fail(on: boolean): void; refused: () => number }> {
  const upstream = new URL(target);
  let failing = false;
  let refused = 0;
  const server = createServer((req, res) => {
    if (failing && matches(req.url ?? '')) {
      refused++;
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 503,
          reason: 'ServiceUnavailable',
        }),
      );
      return;
    }
    const up = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    fail: (on) => {
      failing = on;
    },
    refused: () => refused,
  };
}

describe('sharding: a replica whose Lease lapses for a moment', () => {
  let h: Harness;
  let proxy: Awaited<ReturnType<typeof leaseOutageProxy>> | undefined;
  const controllers: Controller<Widget>[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    proxy?.fail(false);
    for (const c of controllers.splice(0)) await c.stop();
    proxy?.server.closeAllConnections();
    proxy?.server.close();
    await h.close();
  });

  it(
    'joins again under the same shard id and takes back the same keys (none move)',
    { timeout: 90_000 },
    async () => {
      const passes: Pass[] = [];
      const aLog: string[] = [];
      proxy = await leaseOutageProxy(h.server.url, (path) => /\/leases\/sites-shard-a-/.test(path));
      const viaProxy = new KubeConfig();
      viaProxy.loadFromString(buildKubeconfig(proxy.url));
      const replica = (name: string, kubeConfig: KubeConfig): Controller<Widget> => {
        const c = new Controller<Widget>({
          name: 'sites',
          kubeConfig,
          resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, namespace: 'default' },
          reconciler: async (_ctx, req: ReconcileRequest<Widget>) => {
            const start = performance.now();
            await sleep(5 + Math.random() * 10);
            passes.push({
              replica: name,
              key: `default/${req.object.metadata?.name}`,
              n: req.object.spec?.n,
              start,
              end: performance.now(),
            });
          },
          sharding: { leaseNamespace: 'default', identity: name, ...timing },
          workers: 3,
          logger:
            name === 'a'
              ? createLogger({
                  format: 'json',
                  stream: new Writable({
                    write(chunk: Buffer, _enc, done) {
                      aLog.push(chunk.toString());
                      done();
                    },
                  }),
                })
              : createLogger({ silent: true }),
        });
        controllers.push(c);
        return c;
      };
      // b starts first and becomes the sharder: the outage touches a's shard Lease only.
      const b = replica('b', h.kubeConfig);
      await b.start();
      const a = replica('a', viaProxy);
      const c = replica('c', h.kubeConfig);
      await Promise.all([a.start(), c.start()]);
      const label = shardLabels('sites').shard;
      for (let i = 0; i < N; i++) await h.client.create(widget(`w${i}`, {}, { n: 1 }));
      const owners = new Map([
        [a.core.shard, 'a'],
        [b.core.shard, 'b'],
        [c.core.shard, 'c'],
      ]);
      const list = async () => (await h.client.list<Widget>({ ...WIDGET, namespace: 'default' })).items;
      /** Waits until every object is on a shard of a, b or c and its spec.n `n` was reconciled there. */
      const converged = async (n: number, what: string): Promise<Map<string, string>> => {
        const deadline = Date.now() + 30_000;
        for (;;) {
          const items = await list();
          const placed = new Map(
            items.map((w) => [`default/${w.metadata?.name}`, w.metadata?.labels?.[label] ?? '']),
          );
          const done = [...placed].every(([key, shard]) => {
            const owner = owners.get(shard);
            return (
              owner !== undefined && passes.some((p) => p.key === key && p.replica === owner && p.n === n)
            );
          });
          if (done && placed.size === N) return placed;
          if (Date.now() > deadline) throw new Error(`${what}: not converged`);
          await sleep(100);
        }
      };
      const before = await converged(1, 'three replicas');
      const aShard = a.core.shard;
      const aKeys = [...before].filter(([, s]) => s === aShard).map(([k]) => k);
      expect(aKeys.length).toBeGreaterThan(0);
      expect(new Set(before.values()).size).toBe(3);

      // a's shard Lease cannot be renewed for longer than its renew deadline (shorter than the lease).
      proxy.fail(true);
      const outAt = performance.now();
      await sleep(timing.renewDeadlineMs + 800);
      // a's term has ended: it is between terms or already fenced, and passes nothing of its own while out.
      expect(aLog.some((l) => l.includes('left the shard ring'))).toBe(true);
      for (let i = 0; i < N; i++) await h.client.patch(ref(`w${i}`), { spec: { n: 2 } }, 'merge');
      await sleep(Math.max(0, OUTAGE_MS - (performance.now() - outAt)));
      const backAt = performance.now();
      proxy.fail(false);
      // From its renew deadline to the end of the outage a started no pass (its fence was closed).
      const fencedAt = outAt + timing.renewDeadlineMs;
      expect(passes.filter((p) => p.replica === 'a' && p.start >= fencedAt && p.start < backAt)).toEqual([]);
      expect(proxy.refused()).toBeGreaterThan(0);

      // a joins again under the same shard id: every object keeps its shard, and the change made while a
      // was out is worked by a on its own keys.
      const after = await converged(2, 'after the rejoin');
      expect(a.core.shard).toBe(aShard);
      const moved = [...after].filter(([key, shard]) => before.get(key) !== shard);
      expect(moved).toEqual([]);
      for (const key of aKeys)
        expect(passes.some((p) => p.key === key && p.replica === 'a' && p.n === 2)).toBe(true);
      expect(aLog.filter((l) => l.includes('joined the shard ring'))).toHaveLength(2);

      // No key was in a pass on two replicas at once.
      const byKey = new Map<string, Pass[]>();
      for (const p of passes) byKey.set(p.key, [...(byKey.get(p.key) ?? []), p]);
      for (const [key, ps] of byKey) {
        ps.sort((x, y) => x.start - y.start);
        for (let i = 1; i < ps.length; i++) {
          if ((ps[i] as Pass).start < (ps[i - 1] as Pass).end) throw new Error(`${key}: overlapping passes`);
        }
      }
    },
  );
});
