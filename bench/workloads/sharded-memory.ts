// Workload 17: per-replica peak RSS of a sharded controller (issue 33). The same reconcilekit Controller
// (bench/operators/reconcilekit-controller-operator.ts: Websites owning ConfigMaps, 8 workers) converges N
// Websites once as a single replica holding every object, and once as 3 replicas with the `sharding` option
// (each in its own process, children following their owner's shard). Every run gets a fresh embedded
// server; the two layouts alternate run by run. Peak RSS is each operator process's own maxRSS once every
// Website has converged; the sharded row quotes the largest replica of its run (and the sharder's replica,
// which also watches every object's metadata, apart from the others).
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { Child, type ChildMessage } from '../lib/child.js';
import { ConvergenceTracker } from '../lib/convergence-tracker.js';
import { progress } from '../lib/progress.js';
import { summarise } from '../lib/stats.js';
import { formatNumber, formatRatio, markdownTable } from '../lib/table.js';
import { embeddedTarget, seedWebsites, type Target } from '../lib/target.js';

const CONTROLLER = 'bench-websites-controller';
const SHARD_LABEL = `shard.reconcilekit.io/${CONTROLLER}`;
const REPLICAS = ['replica-a', 'replica-b', 'replica-c'] as const;

/** One operator process's memory once the run converged. */
interface ReplicaMemory {
  identity: string;
  /** Peak RSS, MiB. */
  peakMiB: number;
  /** RSS once its modules were loaded, before start(), MiB. */
  loadedMiB: number;
  /** process.memoryUsage() at the end of the run, MiB. */
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  arrayBuffersMiB: number;
  /** Websites labelled with this replica's shard (sharded runs). */
  owned: number;
  sharder: boolean;
}

interface RunSample {
  layout: 'single' | 'sharded';
  run: number;
  convergedMs: number;
  load1: number;
  replicas: ReplicaMemory[];
}

function objectsFor(ctx: BenchContext): number {
  return ctx.mode === 'full' ? 10_000 : ctx.mode === 'quick' ? 1_500 : 100;
}

const mib = (bytes: number): number => bytes / 1_048_576;

/** Holder of the sharder Lease (the sharder's shard id, `<identity>-<8 hex>`), or '' when none. */
async function sharderHolder(target: Target): Promise<string> {
  try {
    const lease = await target.rest.request<{ spec?: { holderIdentity?: string } }>(
      'GET',
      `/apis/coordination.k8s.io/v1/namespaces/${target.namespace}/leases/${CONTROLLER}-sharder`,
    );
    return lease.spec?.holderIdentity ?? '';
  } catch {
    return '';
  }
}

async function oneRun(ctx: BenchContext, layout: RunSample['layout'], run: number): Promise<RunSample> {
  const n = objectsFor(ctx);
  const target = await embeddedTarget({ profileDir: ctx.profileDir });
  const children: { identity: string; child: Child; loaded?: ChildMessage }[] = [];
  const tracker = new ConvergenceTracker(target.rest, target.namespace);
  try {
    await seedWebsites(target, n);
    await tracker.start();
    const identities = layout === 'single' ? ['single'] : [...REPLICAS];
    for (const identity of identities) {
      const child = Child.fork(
        'operators/operator-child.js',
        ['reconcilekit-controller', target.kubeconfigPath, target.namespace, '8'],
        {
          env: {
            RECONCILEKIT_BENCH_DEFAULT_KUBECONFIG: '1',
            ...(layout === 'single' ? {} : { RECONCILEKIT_BENCH_SHARD: identity }),
          },
        },
      );
      children.push({ identity, child });
    }
    for (const c of children) c.loaded = await c.child.next('loaded', 120_000);
    const startedAt = performance.now();
    await Promise.all(children.map((c) => c.child.ask({ type: 'start' }, 300_000)));
    const doneAt = await tracker.until(() => tracker.convergedCount === n, 900_000);
    const convergedMs = doneAt - startedAt;
    // Let the last writes' watch events land in every cache before reading the peaks.
    await new Promise((r) => setTimeout(r, 2_000));
    const holder = layout === 'sharded' ? await sharderHolder(target) : '';
    const replicas: ReplicaMemory[] = [];
    for (const c of children) {
      const count = await c.child.ask({ type: 'count' }, 60_000);
      const memory = count.memory as NodeJS.MemoryUsage;
      let owned = 0;
      for (const site of tracker.sites.values()) {
        const label = (site.metadata as { labels?: Record<string, string> }).labels?.[SHARD_LABEL] ?? '';
        if (layout === 'single' || label.startsWith(`${c.identity}-`)) owned += 1;
      }
      replicas.push({
        identity: c.identity,
        peakMiB: (count.maxRssKiB as number) / 1024,
        loadedMiB: ((c.loaded?.rssKiB as number | undefined) ?? Number.NaN) / 1024,
        heapUsedMiB: mib(memory.heapUsed),
        heapTotalMiB: mib(memory.heapTotal),
        externalMiB: mib(memory.external),
        arrayBuffersMiB: mib(memory.arrayBuffers),
        owned,
        sharder: holder !== '' && holder.startsWith(`${c.identity}-`),
      });
    }
    return { layout, run, convergedMs, load1: os.loadavg()[0] ?? Number.NaN, replicas };
  } finally {
    await tracker.stop();
    await Promise.all(children.map((c) => c.child.stop()));
    await target.close();
  }
}

function describe(r: ReplicaMemory): string {
  return (
    `${r.identity}${r.sharder ? ' (sharder)' : ''}: peak ${formatNumber(r.peakMiB, 0)} MiB, ` +
    `loaded ${formatNumber(r.loadedMiB, 0)}, heap ${formatNumber(r.heapUsedMiB, 0)}/${formatNumber(r.heapTotalMiB, 0)}, ` +
    `external ${formatNumber(r.externalMiB, 0)}, owns ${r.owned}`
  );
}

/** Runs workload 17 on the embedded server. */
export async function runShardedMemory(ctx: BenchContext): Promise<WorkloadResult> {
  const n = objectsFor(ctx);
  const runs = ctx.sizes.runs;
  progress(`workload 17: peak RSS per replica, 1 replica vs 3 shards on ${n} Websites, ${runs} runs each`);
  const samples: RunSample[] = [];
  const failures: string[] = [];
  for (let run = 1; run <= runs; run++) {
    // Alternate which layout goes first, so drift in the machine's load hits both alike.
    const order: RunSample['layout'][] = run % 2 === 1 ? ['single', 'sharded'] : ['sharded', 'single'];
    for (const layout of order) {
      try {
        const sample = await oneRun(ctx, layout, run);
        samples.push(sample);
        progress(
          `workload 17 run ${run}/${runs} ${layout} (converged ${formatNumber(sample.convergedMs / 1000, 1)} s, ` +
            `load ${formatNumber(sample.load1, 1)}): ${sample.replicas.map(describe).join('; ')}`,
        );
      } catch (err) {
        failures.push(`${layout} run ${run}: ${String(err)}`);
        progress(`workload 17 run ${run}/${runs} ${layout}: failed: ${String(err)}`);
      }
    }
  }
  const single = samples.filter((s) => s.layout === 'single');
  const sharded = samples.filter((s) => s.layout === 'sharded');
  const pick = (rs: RunSample[], f: (s: RunSample) => ReplicaMemory[]): ReplicaMemory[] => rs.flatMap(f);
  const singleReplicas = pick(single, (s) => s.replicas);
  const largest = sharded.map((s) => s.replicas.reduce((a, b) => (b.peakMiB > a.peakMiB ? b : a)));
  const sharders = pick(sharded, (s) => s.replicas.filter((r) => r.sharder));
  const others = pick(sharded, (s) => s.replicas.filter((r) => !r.sharder));
  const row = (system: string, rs: ReplicaMemory[], base: number) => {
    const peak = summarise(rs.map((r) => r.peakMiB));
    return {
      system,
      cells: [
        peak,
        summarise(rs.map((r) => r.loadedMiB)),
        summarise(rs.map((r) => r.peakMiB - r.loadedMiB)),
        summarise(rs.map((r) => r.heapUsedMiB)),
        summarise(rs.map((r) => r.externalMiB)),
        summarise(rs.map((r) => r.owned)),
        formatRatio(peak.median, base, 2),
      ],
    };
  };
  const base = summarise(singleReplicas.map((r) => r.peakMiB)).median;
  const md = markdownTable(
    [
      { heading: 'peak RSS (MiB)', digits: 0 },
      { heading: 'RSS when loaded (MiB)', digits: 0 },
      { heading: 'peak − loaded (MiB)', digits: 0 },
      { heading: 'heap used at end (MiB)', digits: 0 },
      { heading: 'external (MiB)', digits: 0 },
      { heading: 'Websites owned', digits: 0 },
      { heading: '÷ single replica', digits: 2 },
    ],
    [
      row('1 replica, every object', singleReplicas, base),
      row('3 shards: largest replica of each run', largest, base),
      row('3 shards: the sharder’s replica', sharders, base),
      row('3 shards: the other replicas', others, base),
    ],
  );
  const ratio = summarise(largest.map((r) => r.peakMiB)).median / base;
  const loads = samples.map((s) => s.load1);
  const targets: TargetCheck[] = [
    {
      target: `per-replica peak RSS with 3 shards ≤ 0.45× a single replica holding all ${n} objects`,
      actual: `${formatRatio(ratio * base, base, 2)} (largest replica's median ${formatNumber(ratio * base, 0)} MiB vs ${formatNumber(base, 0)} MiB)`,
      met: ratio <= 0.45 && failures.length === 0 && sharded.length > 0 && single.length > 0,
    },
  ];
  const notes =
    `${n} Websites (each converges to one owned ConfigMap), 8 workers per replica, a fresh embedded server per run, ` +
    `layouts alternated; converged in ${formatNumber(summarise(single.map((s) => s.convergedMs / 1000)).median, 1)} s ` +
    `(1 replica) and ${formatNumber(summarise(sharded.map((s) => s.convergedMs / 1000)).median, 1)} s (3 shards), medians; ` +
    `load average ${formatNumber(Math.min(...loads), 1)}–${formatNumber(Math.max(...loads), 1)} at the runs' ends.` +
    (failures.length > 0 ? `\n\nFailed runs: ${failures.join('; ')}` : '');
  return {
    id: 17,
    title: 'Sharded replicas: peak RSS per replica against one replica holding every object',
    markdown: `${md}\n\n${notes}\n\n${targetLines(targets)}`,
    targets,
    raw: { objects: n, samples, failures },
  };
}
