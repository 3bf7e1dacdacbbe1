// Workload 7: scale on the real kube-apiserver (issue 18). N Websites exist (10,000; also 50,000 in full
// mode); reconcilekit and controller-runtime, 8 workers each, start and converge every one. Per system:
// time to the first converged object (initial list and cache sync done, first reconcile written), time to
// converge all, peak RSS, CPU seconds of the operator process and per reconcile, and the memory per cached
// Website (peak RSS after − RSS once loaded, ÷ N; each Website's ConfigMap is cached too).
import { performance } from 'node:perf_hooks';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { ConvergenceTracker } from '../lib/convergence-tracker.js';
import {
  CONTROLLER_RUNTIME_8,
  RECONCILEKIT_8,
  loadOperator,
  selectedSystems,
  type SystemUnderTest,
} from '../lib/operator-run.js';
import { placesFor, placeTitle } from '../lib/places.js';
import { progress } from '../lib/progress.js';
import type { PlotGroup } from '../lib/svg-plot.js';
import { formatNumber, formatRatio, markdownTable } from '../lib/table.js';
import { seedWebsites, type Target } from '../lib/target.js';

/** One system at one size. */
interface ScaleSample {
  objects: number;
  system: string;
  firstSeconds: number;
  convergeSeconds: number;
  reconciles: number;
  errors: number;
  cpuSeconds: number;
  peakRssMiB: number;
  kibPerObject: number;
  seedSeconds: number;
  failure?: string;
}

async function oneRun(
  ctx: BenchContext,
  makeTarget: () => Promise<Target>,
  sut: SystemUnderTest,
  n: number,
): Promise<ScaleSample> {
  const sample: ScaleSample = {
    objects: n,
    system: sut.label,
    firstSeconds: Number.NaN,
    convergeSeconds: Number.NaN,
    reconciles: Number.NaN,
    errors: 0,
    cpuSeconds: Number.NaN,
    peakRssMiB: Number.NaN,
    kibPerObject: Number.NaN,
    seedSeconds: Number.NaN,
  };
  const target = await makeTarget();
  const tracker = new ConvergenceTracker(target.rest, target.namespace);
  try {
    const seeding = performance.now();
    await seedWebsites(target, n);
    sample.seedSeconds = (performance.now() - seeding) / 1000;
    await tracker.start();
    const operator = await loadOperator(ctx, target, sut, `scale-${n}`);
    try {
      const before = await operator.count();
      const startedAt = operator.start();
      const timeoutMs = Math.max(600_000, n * 60);
      const firstAt = await tracker.until(() => tracker.convergedCount >= 1, timeoutMs);
      const convergedAt = await tracker.until(() => tracker.convergedCount >= n, timeoutMs);
      const after = await operator.count();
      sample.firstSeconds = (firstAt - startedAt) / 1000;
      sample.convergeSeconds = (convergedAt - startedAt) / 1000;
      sample.reconciles = after.calls;
      sample.errors = after.errors;
      sample.cpuSeconds = (after.cpuMs - before.cpuMs) / 1000;
      sample.peakRssMiB = after.maxRssKiB / 1024;
      sample.kibPerObject = (after.maxRssKiB - before.maxRssKiB) / n;
    } finally {
      await operator.stop();
    }
  } catch (err) {
    sample.failure = String(err);
    progress(`  ${sut.label}: run failed: ${String(err)}`);
  } finally {
    await tracker.stop();
    await target.close();
  }
  return sample;
}

function checks(rk: ScaleSample | undefined, cr: ScaleSample | undefined, n: number): TargetCheck[] {
  if (rk === undefined || cr === undefined) return [];
  const cpuRk = rk.cpuSeconds / rk.reconciles;
  const cpuCr = cr.cpuSeconds / cr.reconciles;
  return [
    {
      target: `[real, ${n}] reconcilekit time to converge ≤ 1.2 × controller-runtime's`,
      actual: formatRatio(rk.convergeSeconds, cr.convergeSeconds),
      met: rk.convergeSeconds / cr.convergeSeconds <= 1.2,
    },
    {
      target: `[real, ${n}] reconcilekit peak RSS ≤ 2 × controller-runtime's`,
      actual: formatRatio(rk.peakRssMiB, cr.peakRssMiB),
      met: rk.peakRssMiB / cr.peakRssMiB <= 2,
    },
    {
      target: `[real, ${n}] reconcilekit CPU seconds per reconcile ≤ 1.5 × controller-runtime's`,
      actual: formatRatio(cpuRk, cpuCr),
      met: cpuRk / cpuCr <= 1.5,
    },
  ];
}

/** Runs workload 7 on the real backend (or the KUBECONFIG cluster); skipped on the embedded server only. */
export async function runScale(ctx: BenchContext): Promise<WorkloadResult> {
  const sizes = ctx.mode === 'full' ? [10_000, 50_000] : ctx.mode === 'quick' ? [10_000] : [500];
  const place = placesFor(ctx).find((p) => p.name === 'cluster');
  const title = 'Scale on the real kube-apiserver: initial sync, convergence, RSS and CPU per process';
  if (place === undefined) {
    const why = 'skipped: no real kube-apiserver (make envtest-assets) and no KUBECONFIG';
    progress(`workload 7: ${why}`);
    return { id: 7, title, markdown: why, targets: [], raw: { skipped: why } };
  }
  const systems = selectedSystems(ctx, [RECONCILEKIT_8, CONTROLLER_RUNTIME_8]);
  progress(`workload 7: scale, ${sizes.join(' and ')} Websites, ${systems.map((s) => s.label).join(', ')}`);
  const samples: ScaleSample[] = [];
  const targets: TargetCheck[] = [];
  const groups: PlotGroup[] = [];
  const parts: string[] = [];
  for (const n of sizes) {
    const rows: ScaleSample[] = [];
    for (const sut of systems) {
      const started = performance.now();
      const s = await oneRun(ctx, () => place.make(), sut, n);
      rows.push(s);
      progress(
        `workload 7 [${n}] ${sut.label}: first ${formatNumber(s.firstSeconds, 2)} s, all ${formatNumber(s.convergeSeconds, 2)} s, ` +
          `${formatNumber(s.peakRssMiB, 0)} MiB, ${formatNumber(s.cpuSeconds, 1)} CPU s ` +
          `(${formatNumber((performance.now() - started) / 1000, 1)} s with seeding)`,
      );
    }
    samples.push(...rows);
    const cr = rows.find((r) => r.system === CONTROLLER_RUNTIME_8.label);
    const rk = rows.find((r) => r.system === RECONCILEKIT_8.label);
    const md = markdownTable(
      [
        { heading: 's to first converged (list + sync + first reconcile)', digits: 2 },
        { heading: 's to converge all', digits: 2 },
        { heading: 'reconciles', digits: 0 },
        { heading: 'errors', digits: 0 },
        { heading: 'operator CPU s', digits: 1 },
        { heading: 'CPU ms per reconcile', digits: 2 },
        { heading: 'peak RSS MiB', digits: 0 },
        { heading: 'KiB per cached Website (+ its ConfigMap)', digits: 1 },
        { heading: 'time ÷ controller-runtime', digits: 2 },
      ],
      rows.map((r) => ({
        system: r.system,
        cells: [
          r.firstSeconds,
          r.convergeSeconds,
          r.reconciles,
          r.errors + (r.failure === undefined ? 0 : 1),
          r.cpuSeconds,
          (r.cpuSeconds * 1000) / r.reconciles,
          r.peakRssMiB,
          r.kibPerObject,
          formatRatio(r.convergeSeconds, cr?.convergeSeconds),
        ],
      })),
    );
    parts.push(`**${placeTitle(place)}, ${n} Websites** (one run per system)\n\n${md}`);
    targets.push(...checks(rk, cr, n));
    groups.push({
      title: `${n} Websites: s to converge`,
      bars: rows.map((r) => ({
        label: r.system,
        median: r.convergeSeconds,
        min: r.convergeSeconds,
        max: r.convergeSeconds,
      })),
    });
  }
  await place.dispose();
  return {
    id: 7,
    title,
    markdown:
      `${parts.join('\n\n')}\n\nRelist after a 410 Gone: not measured yet (forcing a 410 on a real ` +
      `kube-apiserver needs an etcd compaction behind the watch cache).\n\n${targetLines(targets)}`,
    targets,
    raw: { sizes, samples },
    plot: { title: 'Workload 7: scale on the real kube-apiserver', unit: 's to converge', groups },
  };
}
