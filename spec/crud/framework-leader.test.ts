import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REAL_BACKEND } from '../real/real-backend.js';
import { Framework } from '../../lib/crud/framework.js';
import { createLogger } from '../../lib/observability/logger.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import {
  eventually,
  RecordingResource,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from './harness.js';

const LEASE = {
  leaseName: 'widgets',
  namespace: 'default',
  leaseDurationMs: 1_000,
  renewDeadlineMs: 600,
  retryPeriodMs: 100,
};

describe('Framework leader election and health', () => {
  let h: Harness;
  const frameworks: Framework<Widget>[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await Promise.all(frameworks.splice(0).map((f) => f.stop()));
    await h.close();
  });

  function replica(
    identity: string,
    recorder: RecordingResource,
    extra: Record<string, unknown> = {},
  ): Framework<Widget> {
    const fw = new Framework<Widget>({
      name: 'ha',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
      leaderElection: { ...LEASE, identity },
      finalizer: false,
      logger: createLogger({ silent: true }),
      ...extra,
    });
    frameworks.push(fw);
    return fw;
  }

  it('runs workers only on the leader, and a standby takes over within the lease duration', async () => {
    const ra = new RecordingResource();
    const rb = new RecordingResource();
    const a = replica('a', ra);
    const b = replica('b', rb);
    await Promise.all([a.start(), b.start()]);
    const leader = await eventually(() => (a.leading ? a : b.leading ? b : undefined));
    const [standby, leaderRec, standbyRec] = leader === a ? [b, ra, rb] : [a, rb, ra];
    expect(standby.leading).toBe(false);
    expect(standby.ready).toBe(true);

    await h.client.create(widget('one'));
    await eventually(() => leaderRec.count('create', 'one') === 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(standbyRec.count('create')).toBe(0);

    const stoppedAt = Date.now();
    await leader.stop();
    await eventually(() => standby.leading, 3_000, 'standby to lead');
    expect(Date.now() - stoppedAt).toBeLessThan(LEASE.leaseDurationMs + 500);
    // The new leader starts by reconciling everything it has cached, then new objects.
    await eventually(() => standbyRec.count('create', 'one') === 1);
    await h.client.create(widget('two'));
    await eventually(() => standbyRec.count('create', 'two') === 1);
    expect(leaderRec.count('create', 'two')).toBe(0);
    expect(await standby.metrics.metrics()).toContain('leader_election_master_status{name="widgets"} 1');
  });

  // Skipped on the real backend (`make test-real`): fault injection needs the embedded server.

  it.skipIf(REAL_BACKEND)(
    'aborts in-flight reconciles through their signal when the lease cannot be renewed',
    async () => {
      const recorder = new RecordingResource();
      let abortedWith: unknown;
      recorder.onCreate = (ctx) =>
        new Promise<void>((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            abortedWith = ctx.signal.reason;
            resolve();
          });
        });
      const fw = replica('solo', recorder, { gracefulShutdownMs: 100 });
      await fw.start();
      await eventually(() => fw.leading);
      await h.client.create(widget('long'));
      await eventually(() => recorder.count('create') === 1);
      const fault = h.server.faults.inject({ resource: 'leases', verb: 'update', status: 500 });
      await eventually(() => abortedWith !== undefined, 3_000, 'reconcile aborted after losing the lease');
      expect(fw.leading).toBe(false);
      fault.remove();
      await eventually(() => fw.leading, 3_000, 'leading again');
      // The object is reconciled again in the new term.
      await eventually(() => recorder.count('create') === 2, 3_000);
    },
  );

  it('serves /healthz, /readyz and /metrics', async () => {
    const recorder = new RecordingResource();
    const fw = new Framework<Widget>({
      name: 'probed',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
      healthServer: { host: '127.0.0.1', port: 0 },
      logger: createLogger({ silent: true }),
    });
    frameworks.push(fw);
    await fw.start();
    const url = fw.healthUrl!;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('controller_runtime_reconcile_total{controller="probed",result="success"}');
    expect(metrics).toContain('workqueue_depth{name="probed",controller="probed",priority="0"}');
    expect(metrics).toContain('reconcilekit_watch_relists_total');
  });
});
