// Workload 7: scale on the real kube-apiserver (issue 18). N Websites exist (10,000 and 50,000 in full mode,
// 3,000 in quick mode); reconcilekit and controller-runtime, 8 workers each, start and converge every one. Per system:
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
  type OperatorRun,
  type SystemUnderTest,
} from '../lib/operator-run.js';
import { placesFor, placeTitle } from '../lib/places.js';
import { progress } from '../lib/progress.js';
import type { PlotGroup } from '../lib/svg-plot.js';
import { formatNumber, formatRatio, markdownTable } from '../lib/table.js';
import { seedWebsites, type Target } from '../lib/target.js';
import { websitesPath } from '../lib/website.js';

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
  /** After convergence: kube-apiserver restarted, so every watch resumes with 410 Gone and relists. */
  relist?: RelistSample;
  failure?: string;
}

/** The relist after a 410: one Website is changed as soon as the restarted server is ready. */
interface RelistSample {
  /** Seconds from the restart until the Website collection answers again (the same for every system). */
  restartSeconds: number;
  /** Seconds from ready until the change made then is converged: reconnect + relist + one reconcile. */
  convergeSeconds: number;
  /** Reconciles from the restart until 3 s after that convergence (a relist that re-reconciles all shows N). */
  reconciles: number;
  /** Operator CPU seconds over the same window. */
  cpuSeconds: number;
}

const RELIST_SETTLE_MS = 3_000;
const RELIST_SITE = 'site-00000';

/** Restarts the real kube-apiserver under a converged operator and measures its recovery (see RelistSample). */
async function measureRelist(
  restart: () => Promise<void>,
  target: Target,
  operator: OperatorRun,
  timeoutMs: number,
): Promise<RelistSample> {
  const before = await operator.count();
  const restartStarted = performance.now();
  await restart();
  // Ready for this workload: /readyz answers before a CRD's storage is initialized (429 until then), and the
  // driver's keep-alive sockets died with the old process (the first attempts may be reset).
  const path = `${websitesPath(target.namespace)}/${RELIST_SITE}`;
  const change = { spec: { content: `<h1>changed after the restart at ${Date.now()}</h1>` } };
  let readyAt = Number.NaN;
  for (const deadline = performance.now() + 60_000; ;) {
    try {
      if (Number.isNaN(readyAt)) {
        // resourceVersion=0 is served by the watch cache, the part that answers 429 until it is initialized.
        await target.rest.request('GET', websitesPath(target.namespace) + '?resourceVersion=0&limit=1');
        readyAt = performance.now();
      }
      await target.rest.request('PATCH', path, change, { contentType: 'application/merge-patch+json' });
      break;
    } catch (err) {
      if (performance.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const tracker = new ConvergenceTracker(target.rest, target.namespace);
  try {
    await tracker.start();
    const convergedAt = await tracker.until(() => tracker.isConverged(RELIST_SITE), timeoutMs);
    await new Promise((r) => setTimeout(r, RELIST_SETTLE_MS));
    const after = await operator.count();
    return {
      restartSeconds: (readyAt - restartStarted) / 1000,
      convergeSeconds: (convergedAt - readyAt) / 1000,
      reconciles: after.calls - before.calls,
      cpuSeconds: (after.cpuMs - before.cpuMs) / 1000,
    };
  } finally {
    await tracker.stop();
  }
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
      if (ctx.restartRealApiServer !== undefined) {
        // The driver's own watches would only spin on 410 from here on.
        await tracker.stop();
        sample.relist = await measureRelist(ctx.restartRealApiServer, target, operator, timeoutMs);
      }
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

function relistNote(ctx: BenchContext, samples: readonly ScaleSample[]): string {
  if (ctx.restartRealApiServer === undefined) {
    return 'Relist after a 410 Gone: not measured (only on the real kube-apiserver the bench starts itself).';
  }
  const restarts = samples.flatMap((s) => (s.relist === undefined ? [] : [s.relist.restartSeconds]));
  const slowest = restarts.length === 0 ? Number.NaN : Math.max(...restarts);
  return (
    'Relist after a 410 Gone: once converged, kube-apiserver is restarted (etcd kept; at most ' +
    `${formatNumber(slowest, 1)} s to be ready again), so every watch resumes from a resourceVersion older than ` +
    `the new watch cache and gets 410 Expired; ${RELIST_SITE} is changed as soon as the server is ready. The relist ` +
    'columns give the time from ready until that change is converged (reconnect backoff + relist + one ' +
    `reconcile), and the reconciles and CPU from the restart until ${String(RELIST_SETTLE_MS / 1000)} s after.`
  );
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
  // Quick mode keeps make bench QUICK=1 under 5 minutes (10,000 there took ~110 s with the relist).
  const sizes = ctx.mode === 'full' ? [10_000, 50_000] : ctx.mode === 'quick' ? [3_000] : [500];
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
        { heading: 'relist after 410: s from server ready to a change converged', digits: 2 },
        { heading: 'relist: reconciles', digits: 0 },
        { heading: 'relist: operator CPU s', digits: 1 },
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
          r.relist?.convergeSeconds,
          r.relist?.reconciles,
          r.relist?.cpuSeconds,
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
    markdown: `${parts.join('\n\n')}\n\n${relistNote(ctx, samples)}\n\n${targetLines(targets)}`,
    targets,
    raw: { sizes, samples },
    plot: { title: 'Workload 7: scale on the real kube-apiserver', unit: 's to converge', groups },
  };
}
