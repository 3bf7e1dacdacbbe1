// Workload 1: engine overhead, in process, no network. N objects are fed through updateFunc into a
// Framework whose resource set has three no-op CRUD resources; the baseline is a plain loop calling the
// same ops directly. Reconciles per second, and latency from the event to the last apply step.
import { performance } from 'node:perf_hooks';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import {
  CRUDResource,
  Framework,
  Patch,
  ReconcileContext,
  ResourceSet,
  processUpdate,
  silentLogger,
  type CRUDResourceOps,
} from 'reconcilekit';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { progress } from '../lib/progress.js';
import { percentile, summarise, type Summary } from '../lib/stats.js';
import { formatNumber, formatRatio, markdownTable } from '../lib/table.js';

/** One measured pass: throughput and latency percentiles. */
interface Pass {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** Records, per object, when its event happened and when its last apply step ran. */
class Clock {
  readonly eventAt = new Map<string, number>();
  readonly latencies: number[] = [];
  private remaining = 0;
  private resolveDone: () => void = () => undefined;

  arm(count: number): Promise<void> {
    this.eventAt.clear();
    this.latencies.length = 0;
    this.remaining = count;
    return new Promise((resolve) => (this.resolveDone = resolve));
  }

  applied(obj: KubernetesObject): void {
    const at = this.eventAt.get(obj.metadata?.name ?? '');
    if (at !== undefined) this.latencies.push(performance.now() - at);
    this.remaining -= 1;
    if (this.remaining === 0) this.resolveDone();
  }
}

/** A CRUD resource that reads nothing and changes nothing, but whose patch has an update part. */
function noopOps(
  name: string,
  onLastApply?: (obj: KubernetesObject) => void,
): CRUDResourceOps<KubernetesObject, number, number> {
  return {
    name,
    getCurrentState: () => 0,
    getDesiredState: () => 1,
    newUpdatePatch: (_ctx, _obj, _current, desired) => new Patch<number>().setUpdateChange(desired),
    newDeletePatch: () => undefined,
    applyCreateChange: () => undefined,
    applyDeleteChange: () => undefined,
    applyUpdateChange: (_ctx, obj) => onLastApply?.(obj),
  };
}

function objects(count: number, round: number): KubernetesObject[] {
  return Array.from({ length: count }, (_, i) => ({
    apiVersion: 'bench.reconcilekit.io/v1',
    kind: 'Website',
    metadata: {
      name: `obj-${i}`,
      namespace: 'bench',
      uid: `uid-${i}`,
      resourceVersion: String(round * count + i + 1),
      generation: 1,
    },
  }));
}

function pass(started: number, count: number, clock: Clock): Pass {
  const seconds = (performance.now() - started) / 1000;
  return {
    perSecond: count / seconds,
    p50Ms: percentile(clock.latencies, 50),
    p99Ms: percentile(clock.latencies, 99),
  };
}

/** Baseline: a loop that calls every op of every resource directly, awaiting each (they may be async). */
async function plainLoop(count: number, round: number): Promise<Pass> {
  const clock = new Clock();
  const ops = [
    noopOps('a'),
    noopOps('b'),
    noopOps('c', (o) => {
      clock.applied(o);
    }),
  ];
  const items = objects(count, round);
  const done = clock.arm(count);
  const started = performance.now();
  for (const obj of items) clock.eventAt.set(obj.metadata!.name!, started);
  for (const obj of items) {
    const ctx = new ReconcileContext();
    for (const op of ops) {
      const current = await op.getCurrentState(ctx, obj);
      const desired = await op.getDesiredState(ctx, obj);
      const patch = await op.newUpdatePatch(ctx, obj, current, desired);
      if (patch?.has('create')) await op.applyCreateChange(ctx, obj, patch.get('create')!);
      if (patch?.has('delete')) await op.applyDeleteChange(ctx, obj, patch.get('delete')!);
      if (patch?.has('update')) await op.applyUpdateChange(ctx, obj, patch.get('update')!);
    }
  }
  await done;
  return pass(started, count, clock);
}

/** The CRUD core without the engine: processUpdate per object (fresh context and flags, checkpoints). */
async function processUpdateLoop(count: number, round: number): Promise<Pass> {
  const clock = new Clock();
  const resources = [
    noopOps('a'),
    noopOps('b'),
    noopOps('c', (o) => {
      clock.applied(o);
    }),
  ].map((ops) => new CRUDResource({ ops }));
  const items = objects(count, round);
  const done = clock.arm(count);
  const started = performance.now();
  for (const obj of items) clock.eventAt.set(obj.metadata!.name!, started);
  for (const obj of items) await processUpdate(new ReconcileContext(), obj, resources);
  await done;
  return pass(started, count, clock);
}

/** The engine: updateFunc for every object, then wait until every last apply step ran. */
async function framework(count: number, round: number, workers: number): Promise<Pass> {
  const clock = new Clock();
  const resources = [
    noopOps('a'),
    noopOps('b'),
    noopOps('c', (o) => {
      clock.applied(o);
    }),
  ].map((ops) => new CRUDResource({ ops }));
  const fw = new Framework({
    name: 'bench-engine',
    resourceSets: [new ResourceSet({ resources })],
    workers,
    finalizer: false,
    resyncPeriodMs: 0,
    logger: silentLogger(),
    registry: new Registry(),
    events: false,
    leaderElection: false,
    healthServer: false,
  });
  await fw.start();
  try {
    const items = objects(count, round);
    const done = clock.arm(count);
    const started = performance.now();
    for (const obj of items) {
      clock.eventAt.set(obj.metadata!.name!, performance.now());
      fw.updateFunc(undefined, obj);
    }
    await done;
    return pass(started, count, clock);
  } finally {
    await fw.stop();
  }
}

const SYSTEMS: { label: string; run: (count: number, round: number) => Promise<Pass> }[] = [
  { label: 'plain loop calling the ops (baseline)', run: plainLoop },
  { label: 'processUpdate loop (CRUD core, no engine)', run: processUpdateLoop },
  { label: 'Framework.updateFunc, 1 worker', run: (n, r) => framework(n, r, 1) },
  { label: 'Framework.updateFunc, 8 workers', run: (n, r) => framework(n, r, 8) },
];

/** Runs workload 1. */
export async function runEngineOverhead(ctx: BenchContext): Promise<WorkloadResult> {
  const n = ctx.sizes.engineObjects;
  progress(
    `workload 1: engine overhead, ${n} objects × 3 no-op CRUD resources, ${ctx.sizes.runs} runs (+1 warm-up)`,
  );
  const passes = new Map(SYSTEMS.map((s) => [s.label, [] as Pass[]]));
  for (let round = 0; round <= ctx.sizes.runs; round++) {
    for (const sut of SYSTEMS) {
      const p = await sut.run(n, round);
      if (round > 0) passes.get(sut.label)!.push(p);
      progress(
        `workload 1 ${round === 0 ? 'warm-up' : `run ${round}/${ctx.sizes.runs}`} ${sut.label}: ` +
          `${formatNumber(p.perSecond, 0)} reconciles/s, p50 ${formatNumber(p.p50Ms, 1)} ms, p99 ${formatNumber(p.p99Ms, 1)} ms`,
      );
    }
  }
  const summaries = new Map<string, { rate: Summary; p50: Summary; p99: Summary }>();
  for (const [label, ps] of passes) {
    summaries.set(label, {
      rate: summarise(ps.map((p) => p.perSecond)),
      p50: summarise(ps.map((p) => p.p50Ms)),
      p99: summarise(ps.map((p) => p.p99Ms)),
    });
  }
  const base = summaries.get(SYSTEMS[0]!.label)!.rate.median;
  const rows = [...summaries].map(([label, s]) => ({
    system: label,
    cells: [s.rate, s.p50, s.p99, formatRatio(s.rate.median, base, 2)],
  }));
  const md = markdownTable(
    [
      { heading: 'reconciles/s', digits: 0 },
      { heading: 'p50 ms event → last apply', digits: 1 },
      { heading: 'p99 ms', digits: 1 },
      { heading: 'throughput ÷ plain loop', digits: 2 },
    ],
    rows,
  );
  const targets: TargetCheck[] = SYSTEMS.slice(2).map((sut) => {
    const ratio = summaries.get(sut.label)!.rate.median / base;
    return {
      target: `${sut.label}: throughput ≥ 0.8 × the plain loop`,
      actual: `${formatNumber(ratio, 2)}×`,
      met: ratio >= 0.8,
    };
  });
  return {
    id: 1,
    title: `Engine overhead: ${n} objects through updateFunc, 3 no-op CRUD resources`,
    markdown: `${md}\n\nAll ${n} events arrive at once, so latency is mostly time spent waiting in the queue.\n\n${targetLines(targets)}`,
    targets,
    raw: { objects: n, runs: Object.fromEntries(passes) },
  };
}
