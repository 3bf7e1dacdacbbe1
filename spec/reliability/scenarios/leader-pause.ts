import { writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { buildKubeconfig } from '../../../lib/apiserver/index.js';
import type { ObjectClient } from '../../../lib/kube/object-client.js';
import { ChildOperator } from '../support/child-operator.js';
import type { ChildConfig } from '../support/child-protocol.js';
import { Driver, eventually, extDirIn, removeDir, scratchDir, startCluster } from '../support/cluster.js';
import { SideEffectLog, type SideEffect } from '../support/side-effect-log.js';

export interface LeaderPauseOptions {
  rounds: number;
  objects: number;
  leaseDurationMs: number;
}

export interface LeaderPauseFigures {
  rounds: number;
  /** API writes (create/update/patch/delete, the Lease excepted) the paused leader sent after SIGCONT. */
  writesAfterResume: number;
  /** Resource calls (side effects) the paused leader started after SIGCONT. */
  callsStartedAfterResume: number;
  /**
   * Pairs of calls on the same key by the two replicas whose time spans overlap, leaving out the calls
   * that were already running when the leader was stopped (frozen mid-step; see callsInFlightAtPause).
   */
  sameKeyOverlaps: number;
  /** Calls the leader had begun when SIGSTOP froze it; they finish after SIGCONT (user code mid-step). */
  callsInFlightAtPause: number;
  problems: string[];
}

interface Recorded {
  method: string;
  url: string;
  at: number;
}

/** A pass-through proxy that records the requests of one replica (so its writes can be told apart). */
async function recordingProxy(
  target: string,
  recorded: Recorded[],
): Promise<{ url: string; server: Server }> {
  const upstream = new URL(target);
  const server = createServer((req: IncomingMessage, res) => {
    recorded.push({ method: req.method ?? 'GET', url: req.url ?? '/', at: Date.now() });
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server };
}

const LEASE_NAME = 'gadget-operator-leader';

async function holder(client: ObjectClient): Promise<string | undefined> {
  const lease = await client.get<KubernetesObject & { spec?: { holderIdentity?: string } }>({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    plural: 'leases',
    namespace: 'default',
    name: LEASE_NAME,
  });
  return lease.spec?.holderIdentity;
}

/**
 * Two replicas with leader election; the leader is SIGSTOPped longer than the lease while it works, the
 * standby takes over, then the old leader gets SIGCONT. It must not write under the lease it lost.
 */
export async function runLeaderPause(o: LeaderPauseOptions): Promise<LeaderPauseFigures> {
  const dir = scratchDir('leader-pause');
  const extDir = extDirIn(dir);
  const log = new SideEffectLog(join(dir, 'side-effects.jsonl'));
  const cluster = await startCluster(dir);
  const driver = new Driver(cluster.client);
  const figures: LeaderPauseFigures = {
    rounds: 0,
    writesAfterResume: 0,
    callsStartedAfterResume: 0,
    sameKeyOverlaps: 0,
    callsInFlightAtPause: 0,
    problems: [],
  };
  const replica = (identity: string, kubeconfigPath: string): ChildConfig => ({
    kubeconfigPath,
    extDir,
    logPath: log.path,
    stepDelayMs: 20,
    workers: 2,
    logLevel: 'warn',
    gracefulShutdownMs: 2_000,
    leaderElection: {
      leaseName: LEASE_NAME,
      namespace: 'default',
      identity,
      leaseDurationMs: o.leaseDurationMs,
      renewDeadlineMs: Math.floor(o.leaseDurationMs * 0.66),
      retryPeriodMs: Math.floor(o.leaseDurationMs / 8),
    },
  });
  const children: ChildOperator[] = [];
  const proxies: Server[] = [];
  try {
    // Every replica goes through its own recording proxy.
    const recorded = new Map<string, Recorded[]>();
    const start = async (identity: string): Promise<ChildOperator> => {
      const calls: Recorded[] = [];
      recorded.set(identity, calls);
      const proxy = await recordingProxy(cluster.server.url, calls);
      proxies.push(proxy.server);
      const path = join(dir, `kubeconfig-${identity}`);
      writeFileSync(path, buildKubeconfig(proxy.url), { mode: 0o600 });
      const child = new ChildOperator(replica(identity, path), join(dir, `${identity}.log`));
      children.push(child);
      await child.ready;
      return child;
    };
    const byIdentity = new Map<string, ChildOperator>();
    byIdentity.set('replica-a', await start('replica-a'));
    await eventually(
      async () => (await holder(cluster.client)) === 'replica-a',
      o.leaseDurationMs * 3,
      'a leads',
    );
    byIdentity.set('replica-b', await start('replica-b'));
    const frozen = new Set<SideEffect>();
    for (let round = 0; round < o.rounds; round++) {
      const leaderId = await holder(cluster.client);
      const leader = leaderId === undefined ? undefined : byIdentity.get(leaderId);
      const standbyId = leaderId === 'replica-a' ? 'replica-b' : 'replica-a';
      if (leader === undefined || leaderId === undefined) {
        figures.problems.push(`round ${round}: no leader`);
        break;
      }
      const pid = leader.process.pid;
      // Work for the leader: a burst of creates; pause it once it is busy.
      const burst = Promise.all(
        Array.from({ length: o.objects }, (_, i) => driver.create(`p-${round}-${i}`, `v${i}`)),
      );
      await eventually(
        () => log.read().some((e) => e.op === 'call' && e.pid === pid && e.key.includes(`p-${round}-`)),
        20_000,
        'the leader to be busy',
        5,
      );
      const pausedAt = Date.now();
      process.kill(pid ?? 0, 'SIGSTOP');
      await eventually(
        async () => (await holder(cluster.client)) === standbyId,
        o.leaseDurationMs * 4,
        'the standby to take over',
        20,
      );
      await burst;
      // Let the new leader work on the same keys, then resume the old one in the middle of it.
      await new Promise((r) => setTimeout(r, 200));
      const resumedAt = Date.now();
      process.kill(pid ?? 0, 'SIGCONT');
      await new Promise((r) => setTimeout(r, o.leaseDurationMs));
      const writes = (recorded.get(leaderId) ?? []).filter(
        (r) => r.at >= resumedAt && r.method !== 'GET' && !r.url.includes('/leases/'),
      );
      figures.writesAfterResume += writes.length;
      for (const w of writes) figures.problems.push(`round ${round}: ${w.method} ${w.url} after SIGCONT`);
      const calls = log.read().filter((e) => e.op === 'call');
      figures.callsStartedAfterResume += calls.filter((e) => e.pid === pid && e.start >= resumedAt).length;
      for (const e of calls) {
        if (e.pid === pid && e.start <= pausedAt && e.end >= resumedAt) frozen.add(e);
      }
      figures.rounds++;
    }
    figures.callsInFlightAtPause = frozen.size;
    const isFrozen = (e: SideEffect): boolean =>
      [...frozen].some((f) => f.pid === e.pid && f.start === e.start && f.key === e.key);
    const calls = log.read().filter((e) => e.op === 'call' && !isFrozen(e));
    for (const a of calls) {
      for (const b of calls) {
        if (a.pid < b.pid && a.key === b.key && a.start < b.end && b.start < a.end) {
          figures.sameKeyOverlaps++;
        }
      }
    }
    return figures;
  } finally {
    for (const child of children) {
      if (child.process.pid !== undefined) {
        try {
          process.kill(child.process.pid, 'SIGCONT');
        } catch {
          // already gone
        }
      }
      await child.kill('SIGKILL');
    }
    for (const proxy of proxies) proxy.close();
    await cluster.close();
    removeDir(dir);
  }
}
