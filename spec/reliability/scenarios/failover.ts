import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ObjectClient } from '../../../lib/kube/object-client.js';
import { GADGET_OPERATOR_NAME } from '../fixtures/gadget-operator.js';
import { ChildOperator, type ChildExit } from '../support/child-operator.js';
import type { ChildConfig } from '../support/child-protocol.js';
import {
  convergence,
  Driver,
  eventually,
  extDirIn,
  removeDir,
  scratchDir,
  startCluster,
} from '../support/cluster.js';
import { SideEffectLog } from '../support/side-effect-log.js';

export interface FailoverOptions {
  /** Gadgets created in the burst. */
  objects: number;
  /** Lease duration given to both replicas. */
  leaseDurationMs: number;
  /** Bound on the time to converge after the takeover. */
  convergeTimeoutMs: number;
  /** Renew deadline; default 2/3 of the lease. */
  renewDeadlineMs?: number;
  /** Retry period; default 1/8 of the lease. */
  retryPeriodMs?: number;
  /** How the leader goes: SIGTERM (drains, releases the Lease) or SIGKILL (vanishes). Default SIGTERM. */
  signal?: 'SIGTERM' | 'SIGKILL';
}

export interface FailoverFigures {
  objects: number;
  signal: 'SIGTERM' | 'SIGKILL';
  leaseDurationMs: number;
  /** Retry period of both replicas. */
  retryPeriodMs: number;
  /** Lease holder before the SIGTERM and after the takeover. */
  leaderBefore: string | undefined;
  leaderAfter: string | undefined;
  /** Signal to the leader → the standby holds the Lease. */
  takeoverMs: number;
  /** Signal to the leader → the standby's first resource call. */
  firstStandbyCallMs: number;
  /** Resource calls made by each replica. */
  callsByLeader: number;
  callsByStandby: number;
  /** Pairs of calls of the two replicas whose time spans overlap (0 = never both at once). */
  overlappingCalls: number;
  leaderExit: ChildExit;
  convergeMs: number;
  problems: string[];
}

const LEASE_NAME = 'gadget-operator-leader';

async function leaseHolder(client: ObjectClient): Promise<string | undefined> {
  const lease = await client.get<KubernetesObject & { spec?: { holderIdentity?: string } }>({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    plural: 'leases',
    namespace: 'default',
    name: LEASE_NAME,
  });
  const holder = lease.spec?.holderIdentity;
  return holder === '' ? undefined : holder;
}

/**
 * Scenario 3: two replicas with leader election; the leader is sent SIGTERM during a burst. It drains,
 * releases the Lease and exits 0; the standby takes over within the lease duration; the two never run
 * resource calls at the same time. With SIGKILL the leader vanishes without releasing: the standby
 * takes over once the Lease expires.
 */
export async function runFailover(o: FailoverOptions): Promise<FailoverFigures> {
  const signal = o.signal ?? 'SIGTERM';
  const dir = scratchDir('failover');
  const extDir = extDirIn(dir);
  const log = new SideEffectLog(join(dir, 'side-effects.jsonl'));
  const cluster = await startCluster(dir);
  const driver = new Driver(cluster.client);
  const base: Omit<ChildConfig, 'leaderElection'> = {
    kubeconfigPath: cluster.kubeconfigPath,
    extDir,
    logPath: log.path,
    stepDelayMs: 20,
    workers: 2,
    logLevel: 'warn',
    gracefulShutdownMs: 5_000,
  };
  const replica = (identity: string): ChildConfig => ({
    ...base,
    leaderElection: {
      leaseName: LEASE_NAME,
      namespace: 'default',
      identity,
      leaseDurationMs: o.leaseDurationMs,
      renewDeadlineMs: o.renewDeadlineMs ?? Math.floor(o.leaseDurationMs * 0.66),
      retryPeriodMs: o.retryPeriodMs ?? Math.floor(o.leaseDurationMs / 8),
    },
  });
  const leader = new ChildOperator(replica('replica-a'), join(dir, 'replica-a.log'));
  let standby: ChildOperator | undefined;
  try {
    await leader.ready;
    await eventually(
      async () => (await leaseHolder(cluster.client)) === 'replica-a',
      o.leaseDurationMs * 2,
      'replica-a to lead',
    );
    standby = new ChildOperator(replica('replica-b'), join(dir, 'replica-b.log'));
    await standby.ready;
    const leaderPid = leader.process.pid;
    const standbyPid = standby.process.pid;
    // The burst: every create at once, then SIGTERM once the leader is busy with it.
    const burst = Promise.all(Array.from({ length: o.objects }, (_, i) => driver.create(`f-${i}`, `v${i}`)));
    await eventually(
      () => log.read().filter((e) => e.op === 'call' && e.pid === leaderPid).length >= o.objects / 2,
      20_000,
      'the leader to be busy with the burst',
      10,
    );
    const leaderBefore = await leaseHolder(cluster.client);
    const terminated = Date.now();
    const exited = leader.kill(signal);
    let takeoverMs = Number.NaN;
    await eventually(
      async () => {
        if ((await leaseHolder(cluster.client)) !== 'replica-b') return false;
        takeoverMs = Date.now() - terminated;
        return true;
      },
      o.leaseDurationMs * 3,
      'replica-b to take over',
      20,
    );
    const leaderExit = await exited;
    await burst;
    const finalizer = `reconcilekit.io/${GADGET_OPERATOR_NAME}`;
    const convergeStart = Date.now();
    let problems: string[] = [];
    try {
      await eventually(
        async () => (await convergence(cluster.client, driver, extDir, finalizer, log)).problems.length === 0,
        o.convergeTimeoutMs,
        'convergence after the takeover',
        100,
      );
    } catch {
      problems = (await convergence(cluster.client, driver, extDir, finalizer, log)).problems;
    }
    const convergeMs = Date.now() - convergeStart;
    const calls = log.read().filter((e) => e.op === 'call');
    const byLeader = calls.filter((e) => e.pid === leaderPid);
    const byStandby = calls.filter((e) => e.pid === standbyPid);
    let overlappingCalls = 0;
    for (const a of byLeader) {
      for (const b of byStandby) if (a.start < b.end && b.start < a.end) overlappingCalls += 1;
    }
    const firstStandby = Math.min(...byStandby.map((e) => e.start));
    return {
      objects: o.objects,
      signal,
      leaseDurationMs: o.leaseDurationMs,
      retryPeriodMs: o.retryPeriodMs ?? Math.floor(o.leaseDurationMs / 8),
      leaderBefore,
      leaderAfter: await leaseHolder(cluster.client),
      takeoverMs,
      firstStandbyCallMs: firstStandby - terminated,
      callsByLeader: byLeader.length,
      callsByStandby: byStandby.length,
      overlappingCalls,
      leaderExit,
      convergeMs,
      problems,
    };
  } finally {
    await leader.kill('SIGKILL');
    await standby?.kill('SIGKILL');
    await cluster.close();
    removeDir(dir);
  }
}
