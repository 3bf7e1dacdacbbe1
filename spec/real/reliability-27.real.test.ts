// Issue 27 on a real kube-apiserver (`make test-real`): a replica with a hung member cannot silence an
// operator that runs under a Lease — /readyz 503 naming it while it starts, start() fails loudly within the
// start timeout, and the healthy replica holds kube-apiserver's Lease and reconciles — and `reconcilekit plan`'s dry-run proxy holding kube-apiserver's own credentials
// (spec/cli/plan-cli.test.ts runs on this backend too, for the bypasses).
import { describe, expect, it } from 'vitest';
import { Controller } from '../../lib/controller/controller.js';
import { loadKubeConfig } from '../../lib/kube/kube-config.js';
import { createLogger } from '../../lib/observability/logger.js';
import { Operator } from '../../lib/operator/operator.js';
import { isStartTimeout, type StartTimeoutError } from '../../lib/index.js';
import { REAL_BACKEND } from './real-backend.js';
import { suiteNamespace } from './suite-namespace.js';

const silent = createLogger({ silent: true });

describe.runIf(REAL_BACKEND)('issue 27 on a real kube-apiserver', () => {
  const suite = suiteNamespace('rel27');
  const ns = suite.name;

  it('a replica whose member never starts: /readyz 503 naming it, StartTimeoutError naming it within the timeout, and it never holds the Lease — the healthy replica leads and reconciles', async () => {
    const lease = { leaseName: 'hung-member', namespace: ns };
    const replica = (startTimeoutMs: number): Operator =>
      new Operator({
        kubeConfig: loadKubeConfig(),
        logger: silent,
        healthServer: { port: 0 },
        leaderElection: lease,
        startTimeoutMs,
      });
    const seen = new Set<string>();
    const controller = (name: string): Controller =>
      new Controller({
        name,
        kubeConfig: loadKubeConfig(),
        resource: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: ns },
        reconciler: (_ctx, req) => {
          if (name === 'healthy-b') seen.add(req.key);
        },
        logger: silent,
      });
    const a = replica(5_000);
    const b = replica(30_000);
    const aHealthy = controller('healthy-a');
    const bHealthy = controller('healthy-b');
    let hungStops = 0;
    a.addController(aHealthy);
    a.addController({
      name: 'hung',
      start: () => new Promise<void>(() => undefined),
      stop: () => {
        hungStops++;
        return Promise.resolve();
      },
    });
    b.addController(bHealthy);
    try {
      const began = performance.now();
      let failure: unknown;
      const starting = a.start().catch((err: unknown) => {
        failure = err;
      });
      const bStarting = b.start();
      let readyz = { status: 0, text: '' };
      while (failure === undefined && !readyz.text.includes('hung: starting')) {
        if (a.healthUrl !== undefined) {
          const res = await fetch(`${a.healthUrl}/readyz?verbose`);
          readyz = { status: res.status, text: await res.text() };
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(readyz.status).toBe(503);
      expect(readyz.text).toMatch(
        /hung: starting: start\(\) has not finished after \d+ s \(start timeout 5000 ms\)/,
      );
      // The other replica is not held up: it takes kube-apiserver's Lease and reconciles.
      await bStarting;
      const names = ['one', 'two', 'three'];
      for (const name of names) {
        await suite.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns } });
      }
      while (!names.every((n) => seen.has(`${ns}/${n}`)) && performance.now() - began < 30_000) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect([...seen].filter((k) => names.some((n) => k === `${ns}/${n}`)).sort()).toEqual(
        names.map((n) => `${ns}/${n}`).sort(),
      );
      const held = (await suite.client.get({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        namespace: ns,
        name: 'hung-member',
      })) as { spec?: { holderIdentity?: string } };
      expect(held.spec?.holderIdentity ?? '').not.toBe('');
      await starting;
      const took = performance.now() - began;
      expect(isStartTimeout(failure)).toBe(true);
      expect((failure as StartTimeoutError).member).toBe('hung');
      expect(took).toBeGreaterThanOrEqual(4_900);
      expect(took).toBeLessThan(5_000 + 5_000);
      expect(hungStops).toBe(1);
      expect(a.ready).toBe(false);
      // The failed replica stopped whole; the leader is still the healthy one.
      const after = (await suite.client.get({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        namespace: ns,
        name: 'hung-member',
      })) as { spec?: { holderIdentity?: string } };
      expect(after.spec?.holderIdentity).toBe(held.spec?.holderIdentity);
      expect(b.ready).toBe(true);
    } finally {
      await a.stop().catch(() => undefined);
      await b.stop().catch(() => undefined);
    }
  });
});
