// Workload 2: N Websites exist; the operator starts and, for each, creates one ConfigMap and writes
// status.observedGeneration. Time from start to the last convergence, seen by the driver's watch.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { ConvergenceTracker } from '../lib/convergence-tracker.js';
import {
  CONTROLLER_RUNTIME_1,
  CONTROLLER_RUNTIME_8,
  DOT_I,
  END_TO_END_SYSTEMS,
  RECONCILEKIT_8_LIVE_VIEW,
  FLOOR,
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
import { placesFor, placeTitle, type Place } from '../lib/places.js';
import type { PlotGroup } from '../lib/svg-plot.js';
import { seedWebsites, type Target } from '../lib/target.js';

/** Per system: seconds to converge and handler calls, one sample per run. */
interface SystemSamples {
  seconds: number[];
  calls: number[];
  errors: number[];
  /** CPU seconds the operator process used between start and convergence. */
  operatorCpu: number[];
  /** CPU seconds the embedded server process used in that window (embedded only). */
  serverCpu: number[];
  /** Peak RSS of the operator process, MiB. */
  peakRssMiB: number[];
  failures: string[];
}

const CONVERGE_TIMEOUT_MS = 600_000;

/** Latency added to every request in the second embedded variant: about a keep-alive round trip to a real
 * kube-apiserver (issue 4 measured 2.3 ms for a GET against 1.34 on this machine class; writes cost more). */
export const API_LATENCY_MS = 3;

async function oneRun(
  ctx: BenchContext,
  makeTarget: () => Promise<Target>,
  sut: SystemUnderTest,
  out: SystemSamples,
  latencyMs: number,
): Promise<void> {
  const n = ctx.sizes.endToEndObjects;
  const target = await makeTarget();
  const tracker = new ConvergenceTracker(target.rest, target.namespace);
  let seededDir: string | undefined;
  try {
    const seeded = await seedWebsites(target, n);
    await tracker.start();
    if (latencyMs > 0) await target.setLatency?.(latencyMs);
    // The floor gets the seeded Websites (names, uids, generations) from a file, so it reads nothing.
    const env: Record<string, string> = {};
    if (sut.system === 'floor') {
      seededDir = mkdtempSync(join(tmpdir(), 'rk-bench-floor-'));
      env.RECONCILEKIT_BENCH_SEEDED = join(seededDir, 'websites.json');
      writeFileSync(env.RECONCILEKIT_BENCH_SEEDED, JSON.stringify(seeded));
    }
    const operator = await loadOperator(ctx, target, sut, 'e2e', env);
    try {
      const operatorCpu0 = (await operator.count()).cpuMs;
      const serverCpu0 = await target.serverCpuMs?.();
      const startedAt = operator.start();
      const convergedAt = await tracker.until(() => tracker.convergedCount >= n, CONVERGE_TIMEOUT_MS);
      const { calls, errors, cpuMs, maxRssKiB } = await operator.count();
      out.peakRssMiB.push(maxRssKiB / 1024);
      const serverCpu1 = await target.serverCpuMs?.();
      out.seconds.push((convergedAt - startedAt) / 1000);
      out.calls.push(calls);
      out.errors.push(errors);
      out.operatorCpu.push((cpuMs - operatorCpu0) / 1000);
      if (serverCpu0 !== undefined && serverCpu1 !== undefined)
        out.serverCpu.push((serverCpu1 - serverCpu0) / 1000);
    } finally {
      await operator.stop();
    }
  } catch (err) {
    out.failures.push(String(err));
    progress(`  ${sut.label}: run failed: ${String(err)}`);
  } finally {
    await tracker.stop();
    await target.close();
    if (seededDir !== undefined) rmSync(seededDir, { recursive: true, force: true });
  }
}

async function measure(
  ctx: BenchContext,
  where: string,
  makeTarget: () => Promise<Target>,
  latencyMs: number,
): Promise<Map<SystemUnderTest, SystemSamples>> {
  const samples = new Map<SystemUnderTest, SystemSamples>(
    selectedSystems(ctx, END_TO_END_SYSTEMS).map((s) => [
      s,
      {
        seconds: [],
        calls: [],
        errors: [],
        operatorCpu: [],
        serverCpu: [],
        peakRssMiB: [],
        failures: [],
      },
    ]),
  );
  // Runs are interleaved (run 1 of every system, then run 2, …) so drift on a shared machine hits all alike.
  for (let run = 1; run <= ctx.sizes.runs; run++) {
    for (const sut of selectedSystems(ctx, END_TO_END_SYSTEMS)) {
      const started = performance.now();
      const out = samples.get(sut)!;
      await oneRun(ctx, makeTarget, sut, out, latencyMs);
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
  const floor = summaries.get(FLOOR)?.median ?? Number.NaN;
  const rows = [...samples].map(([sut, s]) => {
    const time = summaries.get(sut)!;
    return {
      system: sut.label,
      cells: [
        time,
        n / time.median,
        summarise(s.calls),
        s.errors.reduce((a, b) => a + b, 0) + s.failures.length,
        summarise(s.operatorCpu).median,
        s.serverCpu.length > 0 ? summarise(s.serverCpu).median : undefined,
        s.peakRssMiB.length > 0 ? summarise(s.peakRssMiB).median : undefined,
        formatRatio(time.median, base, 2),
        formatRatio(time.median, floor, 2),
      ],
    };
  });
  const md = markdownTable(
    [
      { heading: 'seconds to converge, median (min–max)', digits: 2 },
      { heading: 'objects/s', digits: 0 },
      { heading: 'handler calls / reconciles', digits: 0 },
      { heading: 'errors', digits: 0 },
      { heading: 'operator CPU s', digits: 1 },
      { heading: 'server CPU s', digits: 1 },
      { heading: 'operator peak RSS MiB', digits: 0 },
      { heading: 'time ÷ reconcilekit (8 workers)', digits: 2 },
      { heading: 'time ÷ write floor', digits: 2 },
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
  const live = (summaries.get(RECONCILEKIT_8_LIVE_VIEW)?.median ?? Number.NaN) / rk8;
  return [
    {
      target: `[${where}] live view (debugPage history) on: ≤ 5 % slower than off`,
      actual: `${formatNumber((live - 1) * 100, 1)} % (median on / off)`,
      met: live <= 1.05,
    },
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

/** Issue 18's targets: against controller-runtime and the write floor (medians of the same run). */
function peerChecks(summaries: Map<SystemUnderTest, Summary>, where: string, real: boolean): TargetCheck[] {
  const m = (sut: SystemUnderTest): number => summaries.get(sut)?.median ?? Number.NaN;
  const [rk8, rk1, cr8, cr1, floor] = [
    m(RECONCILEKIT_8),
    m(RECONCILEKIT_1),
    m(CONTROLLER_RUNTIME_8),
    m(CONTROLLER_RUNTIME_1),
    m(FLOOR),
  ];
  const out: TargetCheck[] = [];
  if (real && summaries.has(CONTROLLER_RUNTIME_8)) {
    out.push({
      target: `[${where}] reconcilekit ≤ 1.0 × controller-runtime (8 workers and 1 worker)`,
      actual: `${formatRatio(rk8, cr8)} with 8, ${formatRatio(rk1, cr1)} with 1`,
      met: rk8 / cr8 <= 1 && rk1 / cr1 <= 1,
    });
  }
  if (summaries.has(FLOOR)) {
    const limit = real ? 1.3 : 1.5;
    out.push(
      real
        ? {
            target: `[${where}] reconcilekit (8 and 1 workers) ≤ ${limit} × the write floor`,
            actual: `${formatRatio(rk8, floor)} with 8, ${formatRatio(rk1, floor)} with 1`,
            met: rk8 / floor <= limit && rk1 / floor <= limit,
          }
        : {
            target: `[${where}] reconcilekit with 8 workers ≤ ${limit} × the write floor`,
            actual: formatRatio(rk8, floor),
            met: rk8 / floor <= limit,
          },
    );
  }
  return out;
}

/** Runs workload 2 on the embedded server (and on the KUBECONFIG cluster when set). */
export async function runEndToEnd(ctx: BenchContext): Promise<WorkloadResult> {
  const n = ctx.sizes.endToEndObjects;
  progress(`workload 2: end to end, ${n} Websites, ${ctx.sizes.runs} runs per system`);
  const parts: string[] = [];
  const targets: TargetCheck[] = [];
  const raw: Record<string, unknown> = {};
  const groups: PlotGroup[] = [];
  // The embedded server twice: as it is (sub-millisecond answers: the run is CPU-bound on this machine), and
  // with API_LATENCY_MS added to every request, like a real API server's round trip; then the real cluster.
  const variants: { place: Place; name: string; title: string; latencyMs: number }[] = [];
  for (const place of placesFor(ctx)) {
    variants.push({ place, name: place.name, title: placeTitle(place), latencyMs: 0 });
    if (place.name === 'embedded') {
      variants.push({
        place,
        name: `embedded+${API_LATENCY_MS}ms`,
        title: `Embedded API server, ${API_LATENCY_MS} ms added to every request`,
        latencyMs: API_LATENCY_MS,
      });
    }
  }
  for (const v of variants) {
    const samples = await measure(ctx, v.name, () => v.place.make(), v.latencyMs);
    if (v.place.name === 'cluster' || v.latencyMs > 0) await v.place.dispose();
    const { md, summaries } = table(samples, n);
    parts.push(`**${v.title}** (${n} Websites)\n\n${md}`);
    groups.push({
      title: v.title,
      bars: [...summaries].map(([sut, t]) => ({
        label: sut.label,
        median: t.median,
        min: t.min,
        max: t.max,
      })),
    });
    targets.push(...checks(summaries, v.name));
    if (v.latencyMs === 0) targets.push(...peerChecks(summaries, v.name, v.place.name === 'cluster'));
    raw[v.name] = Object.fromEntries(
      [...samples].map(([sut, s]) => [sut.label, { ...s, seconds: summaries.get(sut) }]),
    );
  }
  return {
    id: 2,
    title: 'End to end: converge N Websites (one ConfigMap + status.observedGeneration each)',
    markdown: `${parts.join('\n\n')}\n\n${targetLines(targets)}`,
    targets,
    raw: { objects: n, ...raw },
    plot: { title: `Workload 2: converge ${n} Websites`, unit: 's to converge', groups },
  };
}
