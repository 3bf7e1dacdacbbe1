// Workload 2: N Websites exist; the operator starts and, for each, creates one ConfigMap and writes
// status.observedGeneration. Time from start to the last convergence, seen by the driver's watch.
import { performance } from 'node:perf_hooks';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { ConvergenceTracker } from '../lib/convergence-tracker.js';
import {
  DOT_I,
  HAND_WRITTEN,
  RECONCILEKIT_1,
  RECONCILEKIT_8,
  selectedSystems,
  loadOperator,
  type SystemUnderTest,
} from '../lib/operator-run.js';
import { progress } from '../lib/progress.js';
import { summarise, type Summary } from '../lib/stats.js';
import { formatNumber, formatRatio, markdownTable } from '../lib/table.js';
import { placesFor, placeTitle } from '../lib/places.js';
import { seedWebsites, type Target } from '../lib/target.js';

/** Per system: seconds to converge and handler calls, one sample per run. */
interface SystemSamples {
  seconds: number[];
  calls: number[];
  errors: number[];
  failures: string[];
}

const CONVERGE_TIMEOUT_MS = 600_000;

async function oneRun(
  ctx: BenchContext,
  makeTarget: () => Promise<Target>,
  sut: SystemUnderTest,
  out: SystemSamples,
): Promise<void> {
  const n = ctx.sizes.endToEndObjects;
  const target = await makeTarget();
  const tracker = new ConvergenceTracker(target.rest, target.namespace);
  try {
    await seedWebsites(target, n);
    await tracker.start();
    const operator = await loadOperator(ctx, target, sut, 'e2e');
    try {
      const startedAt = operator.start();
      const convergedAt = await tracker.until(() => tracker.convergedCount >= n, CONVERGE_TIMEOUT_MS);
      const { calls, errors } = await operator.count();
      out.seconds.push((convergedAt - startedAt) / 1000);
      out.calls.push(calls);
      out.errors.push(errors);
    } finally {
      await operator.stop();
    }
  } catch (err) {
    out.failures.push(String(err));
    progress(`  ${sut.label}: run failed: ${String(err)}`);
  } finally {
    await tracker.stop();
    await target.close();
  }
}

async function measure(
  ctx: BenchContext,
  where: string,
  makeTarget: () => Promise<Target>,
): Promise<Map<SystemUnderTest, SystemSamples>> {
  const samples = new Map<SystemUnderTest, SystemSamples>(
    selectedSystems(ctx).map((s) => [s, { seconds: [], calls: [], errors: [], failures: [] }]),
  );
  // Runs are interleaved (run 1 of every system, then run 2, …) so drift on a shared machine hits all alike.
  for (let run = 1; run <= ctx.sizes.runs; run++) {
    for (const sut of selectedSystems(ctx)) {
      const started = performance.now();
      const out = samples.get(sut)!;
      await oneRun(ctx, makeTarget, sut, out);
      const last = out.seconds[out.seconds.length - 1];
      progress(
        `workload 2 [${where}] run ${run}/${ctx.sizes.runs} ${sut.label}: ${formatNumber(last, 2)} s to converge ` +
          `(${formatNumber((performance.now() - started) / 1000, 1)} s with setup)`,
      );
    }
  }
  return samples;
}

function table(
  samples: Map<SystemUnderTest, SystemSamples>,
  n: number,
): { md: string; summaries: Map<SystemUnderTest, Summary> } {
  const summaries = new Map<SystemUnderTest, Summary>();
  for (const [sut, s] of samples) summaries.set(sut, summarise(s.seconds));
  const base = summaries.get(RECONCILEKIT_8)?.median ?? Number.NaN;
  const rows = [...samples].map(([sut, s]) => {
    const time = summaries.get(sut)!;
    return {
      system: sut.label,
      cells: [
        time,
        n / time.median,
        summarise(s.calls),
        s.errors.reduce((a, b) => a + b, 0) + s.failures.length,
        formatRatio(time.median, base, 2),
      ],
    };
  });
  const md = markdownTable(
    [
      { heading: 'seconds to converge, median (min–max)', digits: 2 },
      { heading: 'objects/s', digits: 0 },
      { heading: 'handler calls / reconciles', digits: 0 },
      { heading: 'errors', digits: 0 },
      { heading: 'time ÷ reconcilekit (8 workers)', digits: 2 },
    ],
    rows,
  );
  return { md, summaries };
}

function checks(summaries: Map<SystemUnderTest, Summary>, where: string): TargetCheck[] {
  const rk8 = summaries.get(RECONCILEKIT_8)?.median ?? Number.NaN;
  const rk1 = summaries.get(RECONCILEKIT_1)?.median ?? Number.NaN;
  const dotI = summaries.get(DOT_I)?.median ?? Number.NaN;
  const hand = summaries.get(HAND_WRITTEN)?.median ?? Number.NaN;
  const speedDot = dotI / rk8;
  const speedHand = hand / rk8;
  const speed1 = hand / rk1;
  return [
    {
      target: `[${where}] reconcilekit with 8 workers ≥ 5× faster than both peers`,
      actual: `${formatNumber(speedDot, 2)}× @dot-i, ${formatNumber(speedHand, 2)}× hand-written`,
      met: speedDot >= 5 && speedHand >= 5,
    },
    {
      target: `[${where}] reconcilekit with 1 worker ≥ 2× faster than the hand-written informer`,
      actual: `${formatNumber(speed1, 2)}×`,
      met: speed1 >= 2,
    },
  ];
}

/** Runs workload 2 on the embedded server (and on the KUBECONFIG cluster when set). */
export async function runEndToEnd(ctx: BenchContext): Promise<WorkloadResult> {
  const n = ctx.sizes.endToEndObjects;
  progress(`workload 2: end to end, ${n} Websites, ${ctx.sizes.runs} runs per system`);
  const parts: string[] = [];
  const targets: TargetCheck[] = [];
  const raw: Record<string, unknown> = {};
  for (const place of placesFor(ctx)) {
    const name = place.name;
    const samples = await measure(ctx, name, () => place.make()).finally(() => place.dispose());
    const { md, summaries } = table(samples, n);
    parts.push(`**${placeTitle(place)}** (${n} Websites)\n\n${md}`);
    targets.push(...checks(summaries, name));
    raw[name] = Object.fromEntries(
      [...samples].map(([sut, s]) => [sut.label, { ...s, seconds: summaries.get(sut) }]),
    );
  }
  return {
    id: 2,
    title: 'End to end: converge N Websites (one ConfigMap + status.observedGeneration each)',
    markdown: `${parts.join('\n\n')}\n\n${targetLines(targets)}`,
    targets,
    raw: { objects: n, ...raw },
  };
}
