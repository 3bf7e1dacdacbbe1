import type { KubernetesObject } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { LeaderElector, type LeaderElectorOptions } from '../../lib/leader/leader-elector.js';
import { silentLogger } from '../../lib/observability/logger-silent.js';
import { eventually, startEmbeddedCluster, type EmbeddedCluster } from '../kube/embedded-server.js';

type Lease = KubernetesObject & { spec?: { holderIdentity?: string; leaseTransitions?: number } };

interface Candidate {
  elector: LeaderElector;
  stop: AbortController;
  done: Promise<void>;
  log: { event: 'started' | 'stopped'; at: number }[];
  leaders: string[];
  leaderSignal?: AbortSignal;
}

describe('LeaderElector against the embedded API server', () => {
  let cluster: EmbeddedCluster;
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function boot(): Promise<void> {
    cluster = await startEmbeddedCluster();
    cleanups.push(() => cluster.close());
  }

  function candidate(identity: string, options: Partial<LeaderElectorOptions> = {}): Candidate {
    const elector = new LeaderElector({
      client: cluster.client,
      leaseName: 'my-operator',
      namespace: 'default',
      identity,
      leaseDurationMs: 1000,
      renewDeadlineMs: 600,
      retryPeriodMs: 100,
      logger: silentLogger(),
      ...options,
    });
    const stop = new AbortController();
    const c: Candidate = { elector, stop, log: [], leaders: [], done: Promise.resolve() };
    c.done = elector.run(stop.signal, {
      onStartedLeading: (signal) => {
        c.leaderSignal = signal;
        c.log.push({ event: 'started', at: Date.now() });
      },
      onStoppedLeading: () => c.log.push({ event: 'stopped', at: Date.now() }),
      onNewLeader: (identity) => c.leaders.push(identity),
    });
    cleanups.push(async () => {
      stop.abort();
      await c.done;
    });
    return c;
  }

  const lease = (): Promise<Lease> =>
    cluster.client.get<Lease>({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'default',
      name: 'my-operator',
    });

  it('elects exactly one of two candidates and reports it in leader_election_master_status', async () => {
    await boot();
    const registry = new Registry();
    const a = candidate('a', { registry });
    await eventually(() => a.elector.isLeader(), 5000, 'a leads');
    const b = candidate('b');
    await new Promise((r) => setTimeout(r, 400));
    expect(a.elector.isLeader()).toBe(true);
    expect(b.elector.isLeader()).toBe(false);
    expect((await lease()).spec?.holderIdentity).toBe('a');
    expect(b.leaders).toEqual(['a']);
    expect(await registry.metrics()).toContain('leader_election_master_status{name="my-operator"} 1');
  });

  it('fails over within the lease duration plus about two retry periods when the leader cannot reach the API server, without overlap', async () => {
    await boot();
    const partition = new AbortController();
    const isolatedClient = new ObjectClient({ kubeConfig: cluster.kubeConfig, signal: partition.signal });
    cleanups.push(() => {
      isolatedClient.close();
    });
    const a = candidate('a', { client: isolatedClient });
    await eventually(() => a.elector.isLeader(), 5000, 'a leads');
    const b = candidate('b');
    await new Promise((r) => setTimeout(r, 300));
    expect(b.elector.isLeader()).toBe(false);
    const cut = Date.now();
    partition.abort(); // a can no longer renew
    await eventually(() => b.elector.isLeader(), 5000, 'b takes over');
    const takeover = b.log.find((e) => e.event === 'started')!.at;
    // the 1 s lease + about two retry periods (observation lag + check interval, with jitter) + slack for CI
    expect(takeover - cut).toBeLessThan(1000 + 1000);
    expect(takeover - cut).toBeGreaterThanOrEqual(600); // not before the old lease could have expired
    const aStopped = a.log.find((e) => e.event === 'stopped');
    expect(aStopped).toBeDefined();
    expect(aStopped!.at).toBeLessThan(takeover);
    expect(a.leaderSignal?.aborted).toBe(true);
    const l = await lease();
    expect(l.spec?.holderIdentity).toBe('b');
    expect(l.spec?.leaseTransitions).toBe(1);
  });

  it('releases the lease on stop so the standby takes over at once', async () => {
    await boot();
    const slow = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 100 };
    const a = candidate('a', slow);
    await eventually(() => a.elector.isLeader(), 5000, 'a leads');
    const b = candidate('b', slow);
    await new Promise((r) => setTimeout(r, 200));
    const stopAt = Date.now();
    a.stop.abort();
    await a.done;
    expect(a.elector.isLeader()).toBe(false);
    expect(a.log.map((e) => e.event)).toEqual(['started', 'stopped']);
    await eventually(() => b.elector.isLeader(), 3000, 'b takes over');
    expect(Date.now() - stopAt).toBeLessThan(1000); // far below the 15 s lease
  });

  it('rejects timings that cannot be safe', async () => {
    await boot();
    expect(
      () =>
        new LeaderElector({
          client: cluster.client,
          leaseName: 'x',
          namespace: 'default',
          leaseDurationMs: 1000,
          renewDeadlineMs: 2000,
          logger: silentLogger(),
        }),
    ).toThrow(RangeError);
  });
});
