// Workload 9: performance as users write it. reconcilekit as its README teaches (live reads through the
// framework's client) against controller-runtime as kubebuilder's tutorial teaches (the manager's cached client,
// defaults), same CRD and work as workload 2, on the real kube-apiserver when there is one. Every operator is
// spawned fresh and starts by itself: the clock runs from process spawn (and, second, from "modules loaded").
// Per run: time to converge, reconciles, CPU seconds and peak RSS of the operator's process, the requests the
// API server answered for it (kube-apiserver's apiserver_request_total), and the machine's load. Plus a
// start-up row (spawn → first reconcile with one Website, idle RSS) and the cost of importing the package into
// an empty process.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { Child } from '../lib/child.js';
import { ConvergenceTracker } from '../lib/convergence-tracker.js';
import {
  CONTROLLER_RUNTIME_DOCS_1,
  CONTROLLER_RUNTIME_DOCS_8,
  RECONCILEKIT_README_1,
  RECONCILEKIT_README_8,
  USER_IDIOM_SYSTEMS,
  selectedSystems,
  spawnOperator,
  type SystemUnderTest,
} from '../lib/operator-run.js';
import { placesFor, placeTitle, type Place } from '../lib/places.js';
import { progress } from '../lib/progress.js';
import {
  requestDelta,
  scrapeRequests,
  summariseRequests,
  type RequestSummary,
} from '../lib/request-counter.js';
import { summarise, type Summary } from '../lib/stats.js';
import type { PlotGroup } from '../lib/svg-plot.js';
import { formatNumber, formatRatio, markdownTable } from '../lib/table.js';
import { seedWebsites, type Target } from '../lib/target.js';
import { configMapsPath, websitesPath } from '../lib/website.js';

/** Sizes of each mode; `--sizes` overrides them. 1-worker systems run at the smallest size only. */
export const USER_IDIOM_SIZES = { full: [2_000, 10_000, 50_000], quick: [300, 1_500], tiny: [20] };

/** Targets of the workload (ratios of medians to controller-runtime with the same workers). */
const TIME_TARGET = 0.8;
const RSS_TARGET = 1.0;
const CPU_TARGET = 1.0;
const IMPORT_MS_TARGET = 150;
const IMPORT_RSS_MIB_TARGET = 60;
const FIRST_RECONCILE_MS_TARGET = 400;

/** Modules whose import cost the start-up table shows: the package, and client-node for scale. */
const IMPORTED = ['reconcilekit', '@kubernetes/client-node'];

/** One run of one system at one size. */
interface IdiomSample {
  objects: number;
  system: string;
  run: number;
  /** Seconds from process spawn until the driver saw the last Website converge. */
  spawnSeconds: number;
  /** Seconds from "modules loaded" (Go: manager built) until then. */
  loadedSeconds: number;
  /** Seconds from spawn to the operator's first reconcile (its own clock). */
  firstSeconds: number;
  reconciles: number;
  errors: number;
  /** CPU seconds of the operator's process from spawn to convergence (module loading included). */
  cpuSeconds: number;
  peakRssMiB: number;
  requests?: RequestSummary;
  /** 1-minute load average when the run started and when it ended. */
  load: [number, number];
  failure?: string;
}

/** One start-up run: one Website on a ready server. */
interface StartupSample {
  system: string;
  loadedMs: number;
  firstMs: number;
  convergedMs: number;
  idleRssMiB: number;
  cpuMs: number;
  failure?: string;
}

/** One import into an empty process. */
interface ImportSample {
  module: string;
  ms: number;
  rssMiB: number;
  baseRssMiB: number;
  heapMiB: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The last lines of a log file, for a failed run's message. */
function tail(file: string, lines = 5): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join(' | ');
  } catch {
    return '';
  }
}

/** Deletes the run's Websites and ConfigMaps (kube-apiserver alone runs no namespace controller). */
async function emptyNamespace(target: Target): Promise<void> {
  for (const path of [websitesPath(target.namespace), configMapsPath(target.namespace)]) {
    await target.rest.request('DELETE', path).catch(() => undefined);
  }
}

async function oneRun(
  ctx: BenchContext,
  place: Place,
  sut: SystemUnderTest,
  n: number,
  run: number,
  logDir: string,
): Promise<IdiomSample> {
  const sample: IdiomSample = {
    objects: n,
    system: sut.label,
    run,
    spawnSeconds: Number.NaN,
    loadedSeconds: Number.NaN,
    firstSeconds: Number.NaN,
    reconciles: Number.NaN,
    errors: 0,
    cpuSeconds: Number.NaN,
    peakRssMiB: Number.NaN,
    load: [os.loadavg()[0] ?? Number.NaN, Number.NaN],
  };
  const target = await place.make();
  const tracker = new ConvergenceTracker(target.rest, target.namespace);
  const logFile = join(logDir, `${sut.system}-${sut.workers}-${n}-${run}.log`);
  try {
    await seedWebsites(target, n);
    await tracker.start();
    const before = await scrapeRequests(target.rest);
    sample.load[0] = os.loadavg()[0] ?? Number.NaN;
    const operator = await spawnOperator(ctx, target, sut, `idiom-${n}`, logFile);
    try {
      const convergedAt = await tracker.until(() => tracker.convergedCount >= n, Math.max(600_000, n * 60));
      const convergedAtMs = performance.timeOrigin + convergedAt;
      const c = await operator.count();
      const after = await scrapeRequests(target.rest);
      sample.spawnSeconds = (convergedAtMs - operator.spawnedAtMs) / 1000;
      sample.loadedSeconds = (convergedAtMs - c.loadedAtMs) / 1000;
      sample.firstSeconds =
        c.firstCallAtMs > 0 ? (c.firstCallAtMs - operator.spawnedAtMs) / 1000 : Number.NaN;
      sample.reconciles = c.calls;
      sample.errors = c.errors;
      sample.cpuSeconds = c.cpuMs / 1000;
      sample.peakRssMiB = c.maxRssKiB / 1024;
      if (before !== undefined && after !== undefined) {
        sample.requests = summariseRequests(requestDelta(before, after));
      }
    } finally {
      await operator.stop();
    }
  } catch (err) {
    sample.failure = `${String(err)} ${tail(logFile)}`;
    progress(`  ${sut.label}: run failed: ${sample.failure}`);
  } finally {
    sample.load[1] = os.loadavg()[0] ?? Number.NaN;
    await tracker.stop();
    await emptyNamespace(target);
    await target.close();
  }
  return sample;
}

async function oneStartup(
  ctx: BenchContext,
  place: Place,
  sut: SystemUnderTest,
  logDir: string,
  run: number,
): Promise<StartupSample> {
  const sample: StartupSample = {
    system: sut.label,
    loadedMs: Number.NaN,
    firstMs: Number.NaN,
    convergedMs: Number.NaN,
    idleRssMiB: Number.NaN,
    cpuMs: Number.NaN,
  };
  const target = await place.make();
  const tracker = new ConvergenceTracker(target.rest, target.namespace);
  const logFile = join(logDir, `startup-${sut.system}-${sut.workers}-${run}.log`);
  try {
    await seedWebsites(target, 1);
    await tracker.start();
    const operator = await spawnOperator(ctx, target, sut, 'startup', logFile);
    try {
      const convergedAt = await tracker.until(() => tracker.convergedCount >= 1, 60_000);
      const converged = await operator.count();
      // Idle: converged, nothing left to do; the RSS the process settles at.
      await sleep(2_000);
      const idle = await operator.count();
      sample.loadedMs = converged.loadedAtMs - operator.spawnedAtMs;
      sample.firstMs = converged.firstCallAtMs - operator.spawnedAtMs;
      sample.convergedMs = performance.timeOrigin + convergedAt - operator.spawnedAtMs;
      sample.cpuMs = converged.cpuMs;
      sample.idleRssMiB = idle.rssKiB / 1024;
    } finally {
      await operator.stop();
    }
  } catch (err) {
    sample.failure = `${String(err)} ${tail(logFile)}`;
    progress(`  start-up ${sut.label}: run failed: ${sample.failure}`);
  } finally {
    await tracker.stop();
    await emptyNamespace(target);
    await target.close();
  }
  return sample;
}

async function oneImport(module: string): Promise<ImportSample> {
  const child = Child.fork('children/import-child.js', [module]);
  const m = await child.next('imported', 60_000);
  await child.exited;
  return {
    module,
    ms: m.ms as number,
    rssMiB: (m.rssKiB as number) / 1024,
    baseRssMiB: (m.baseRssKiB as number) / 1024,
    heapMiB: (m.heapKiB as number) / 1024,
  };
}

const med = (values: readonly number[]): number => summarise(values.filter(Number.isFinite)).median;

/** The start-up and import tables, with their targets. */
async function startup(
  ctx: BenchContext,
  place: Place,
  systems: readonly SystemUnderTest[],
  logDir: string,
): Promise<{ md: string; targets: TargetCheck[]; raw: unknown }> {
  const runs = ctx.sizes.runs;
  const starters = systems.filter((s) => s.workers === 8);
  const samples: StartupSample[] = [];
  const imports: ImportSample[] = [];
  for (let run = 1; run <= runs; run++) {
    for (const module of IMPORTED) imports.push(await oneImport(module));
    for (const sut of starters) {
      const s = await oneStartup(ctx, place, sut, logDir, run);
      samples.push(s);
      progress(
        `workload 9 start-up run ${run}/${runs} ${sut.label}: loaded ${formatNumber(s.loadedMs, 0)} ms, ` +
          `first reconcile ${formatNumber(s.firstMs, 0)} ms, idle RSS ${formatNumber(s.idleRssMiB, 0)} MiB`,
      );
    }
  }
  const startupTable = markdownTable(
    [
      { heading: 'ms spawn → modules loaded', digits: 0 },
      { heading: 'ms spawn → first reconcile', digits: 0 },
      { heading: 'ms spawn → converged (1 Website)', digits: 0 },
      { heading: 'CPU ms until converged', digits: 0 },
      { heading: 'idle RSS MiB', digits: 0 },
    ],
    starters.map((sut) => {
      const mine = samples.filter((s) => s.system === sut.label && s.failure === undefined);
      return {
        system: sut.label,
        cells: [
          summarise(mine.map((s) => s.loadedMs)),
          summarise(mine.map((s) => s.firstMs)),
          summarise(mine.map((s) => s.convergedMs)),
          summarise(mine.map((s) => s.cpuMs)),
          summarise(mine.map((s) => s.idleRssMiB)),
        ],
      };
    }),
  );
  const importTable = markdownTable(
    [
      { heading: 'ms to import', digits: 0 },
      { heading: 'RSS MiB after', digits: 1 },
      { heading: 'RSS MiB before (empty Node process)', digits: 1 },
      { heading: 'V8 heap MiB after', digits: 1 },
    ],
    IMPORTED.map((module) => {
      const mine = imports.filter((s) => s.module === module);
      return {
        system: `\`await import('${module}')\``,
        cells: [
          summarise(mine.map((s) => s.ms)),
          summarise(mine.map((s) => s.rssMiB)),
          summarise(mine.map((s) => s.baseRssMiB)),
          summarise(mine.map((s) => s.heapMiB)),
        ],
      };
    }),
  );
  const ours = imports.filter((s) => s.module === 'reconcilekit');
  const importMs = med(ours.map((s) => s.ms));
  const importRss = med(ours.map((s) => s.rssMiB));
  const first = med(samples.filter((s) => s.system === RECONCILEKIT_README_8.label).map((s) => s.firstMs));
  const targets: TargetCheck[] = [
    {
      target: `import('reconcilekit') ≤ ${IMPORT_MS_TARGET} ms and ≤ ${IMPORT_RSS_MIB_TARGET} MiB RSS in an empty process`,
      actual: `${formatNumber(importMs, 0)} ms, ${formatNumber(importRss, 1)} MiB`,
      met: importMs <= IMPORT_MS_TARGET && importRss <= IMPORT_RSS_MIB_TARGET,
    },
    {
      target: `[${place.name}] README idiom: spawn → first reconcile ≤ ${FIRST_RECONCILE_MS_TARGET} ms`,
      actual: `${formatNumber(first, 0)} ms`,
      met: first <= FIRST_RECONCILE_MS_TARGET,
    },
  ];
  const md =
    `**Start-up** (${placeTitle(place)}, one Website on a ready server, ${runs} runs each; clocks from the spawn ` +
    `of the operator's process; idle RSS 2 s after it converged)\n\n` +
    `${startupTable}\n\n**Import into an empty process** (${runs} runs each)\n\n${importTable}`;
  return { md, targets, raw: { startup: samples, imports } };
}

/** Runs workload 9. */
export async function runUserIdiom(ctx: BenchContext): Promise<WorkloadResult> {
  const title =
    'As users write it: the README idiom against controller-runtime as its docs teach, from process spawn';
  const sizes = ctx.idiomSizes ?? USER_IDIOM_SIZES[ctx.mode];
  const places = placesFor(ctx);
  const place = places.find((p) => p.name === 'cluster') ?? places[0]!;
  const systems = selectedSystems(ctx, USER_IDIOM_SYSTEMS);
  const logDir = mkdtempSync(join(tmpdir(), 'rk-bench-idiom-'));
  progress(
    `workload 9: as users write it, ${sizes.join(' / ')} Websites on ${placeTitle(place)}; ` +
      `${systems.map((s) => s.label).join(', ')}; operator logs in ${logDir}`,
  );
  const parts: string[] = [];
  const targets: TargetCheck[] = [];
  const groups: PlotGroup[] = [];
  const samples: IdiomSample[] = [];
  const start = await startup(ctx, place, systems, logDir);
  parts.push(start.md);
  targets.push(...start.targets);
  const smallest = Math.min(...sizes);
  for (const n of sizes) {
    const runs =
      ctx.runsOverride ??
      (n === smallest
        ? ctx.sizes.runs
        : ctx.mode === 'full' && n >= 50_000
          ? 1
          : Math.min(3, ctx.sizes.runs));
    const here = systems.filter((s) => s.workers > 1 || n === smallest);
    const rows = new Map<SystemUnderTest, IdiomSample[]>(here.map((s) => [s, []]));
    // Interleaved: run 1 of every system, then run 2, …
    for (let run = 1; run <= runs; run++) {
      for (const sut of here) {
        const started = performance.now();
        const s = await oneRun(ctx, place, sut, n, run, logDir);
        rows.get(sut)!.push(s);
        samples.push(s);
        progress(
          `workload 9 [${n}] run ${run}/${runs} ${sut.label}: ${formatNumber(s.spawnSeconds, 2)} s from spawn, ` +
            `${formatNumber(s.cpuSeconds, 1)} CPU s, ${formatNumber(s.peakRssMiB, 0)} MiB, load ${formatNumber(s.load[0], 1)} ` +
            `(${formatNumber((performance.now() - started) / 1000, 1)} s with seeding)`,
        );
      }
    }
    const { md, checks, bars } = sizeTable(rows, n, n === smallest);
    parts.push(
      `**${placeTitle(place)}, ${n.toLocaleString('en-US')} Websites** (${runs} interleaved runs)\n\n${md}`,
    );
    targets.push(...checks.map((c) => ({ ...c, target: `[${place.name}, ${n}] ${c.target}` })));
    groups.push({ title: `${n} Websites: s from spawn to converged`, bars });
  }
  await Promise.all(places.map((p) => p.dispose()));
  rmSync(logDir, { recursive: true, force: true });
  return {
    id: 9,
    title,
    markdown: `${parts.join('\n\n')}\n\n${targetLines(targets)}`,
    targets,
    raw: { sizes, samples, ...(start.raw as object) },
    plot: { title: 'Workload 9: as users write it (from process spawn)', unit: 's to converge', groups },
  };
}

function sizeTable(
  rows: Map<SystemUnderTest, IdiomSample[]>,
  n: number,
  smallest: boolean,
): { md: string; checks: TargetCheck[]; bars: PlotGroup['bars'] } {
  const ok = (s: IdiomSample[]): IdiomSample[] => s.filter((x) => x.failure === undefined);
  const medians = new Map<
    SystemUnderTest,
    { time: number; rss: number; cpuPerReconcile: number; cpuPerObject: number }
  >();
  for (const [sut, all] of rows) {
    const s = ok(all);
    medians.set(sut, {
      time: med(s.map((x) => x.spawnSeconds)),
      rss: med(s.map((x) => x.peakRssMiB)),
      cpuPerReconcile: med(s.map((x) => x.cpuSeconds / x.reconciles)),
      cpuPerObject: med(s.map((x) => x.cpuSeconds / n)),
    });
  }
  const peerOf = (sut: SystemUnderTest): SystemUnderTest =>
    sut.workers === 1 ? CONTROLLER_RUNTIME_DOCS_1 : CONTROLLER_RUNTIME_DOCS_8;
  const perSite = (s: IdiomSample[], pick: (r: RequestSummary) => number): Summary | undefined => {
    const values = s.flatMap((x) => (x.requests === undefined ? [] : [pick(x.requests) / n]));
    return values.length === 0 ? undefined : summarise(values);
  };
  const md = markdownTable(
    [
      { heading: 's spawn → converged', digits: 2 },
      { heading: 's modules loaded → converged', digits: 2 },
      { heading: 's spawn → first reconcile', digits: 2 },
      { heading: 'reconciles', digits: 0 },
      { heading: 'failed requests (operator)', digits: 0 },
      { heading: 'CPU s (process, from spawn)', digits: 1 },
      { heading: 'CPU ms / reconcile', digits: 3 },
      { heading: 'CPU ms / Website', digits: 3 },
      { heading: 'peak RSS MiB', digits: 0 },
      { heading: 'GETs / Website (of them 404)', digits: 2 },
      { heading: 'writes / Website', digits: 2 },
      { heading: 'failed writes', digits: 0 },
      { heading: 'load (1-min avg at start)', digits: 1 },
      { heading: 'time ÷ controller-runtime (same workers)', digits: 2 },
    ],
    [...rows].map(([sut, all]) => {
      const s = ok(all);
      const gets = perSite(s, (r) => r.gets);
      const notFound = perSite(s, (r) => r.notFound);
      return {
        system: sut.label,
        cells: [
          summarise(s.map((x) => x.spawnSeconds)),
          summarise(s.map((x) => x.loadedSeconds)),
          summarise(s.map((x) => x.firstSeconds)),
          summarise(s.map((x) => x.reconciles)),
          summarise(s.map((x) => x.errors)).median + (all.length - s.length),
          summarise(s.map((x) => x.cpuSeconds)),
          summarise(s.map((x) => (x.cpuSeconds * 1000) / x.reconciles)),
          summarise(s.map((x) => (x.cpuSeconds * 1000) / n)),
          summarise(s.map((x) => x.peakRssMiB)),
          gets === undefined
            ? undefined
            : `${formatNumber(gets.median, 2)} (${formatNumber(notFound?.median, 2)})`,
          perSite(s, (r) => r.writes),
          perSite(s, (r) => r.failedWrites) === undefined
            ? undefined
            : summarise(s.flatMap((x) => (x.requests === undefined ? [] : [x.requests.failedWrites]))),
          summarise(all.map((x) => x.load[0])),
          formatRatio(medians.get(sut)?.time, medians.get(peerOf(sut))?.time),
        ],
      };
    }),
  );
  const checks: TargetCheck[] = [];
  const pairs: [SystemUnderTest, SystemUnderTest][] = [[RECONCILEKIT_README_8, CONTROLLER_RUNTIME_DOCS_8]];
  if (smallest) pairs.push([RECONCILEKIT_README_1, CONTROLLER_RUNTIME_DOCS_1]);
  for (const [rk, cr] of pairs) {
    const a = medians.get(rk);
    const b = medians.get(cr);
    if (a === undefined || b === undefined) continue;
    checks.push({
      target: `${rk.label}: time from spawn ≤ ${TIME_TARGET} × controller-runtime's`,
      actual: formatRatio(a.time, b.time),
      met: a.time / b.time <= TIME_TARGET,
    });
    if (rk.workers === 8) {
      checks.push({
        target: `${rk.label}: CPU s per reconcile ≤ ${CPU_TARGET} × controller-runtime's`,
        actual: `${formatRatio(a.cpuPerReconcile, b.cpuPerReconcile)} (per Website ${formatRatio(a.cpuPerObject, b.cpuPerObject)})`,
        met: a.cpuPerReconcile / b.cpuPerReconcile <= CPU_TARGET,
      });
      if (n >= 10_000) {
        checks.push({
          target: `${rk.label}: peak RSS ≤ ${RSS_TARGET} × controller-runtime's`,
          actual: formatRatio(a.rss, b.rss),
          met: a.rss / b.rss <= RSS_TARGET,
        });
      }
    }
  }
  const bars = [...rows].map(([sut, all]) => {
    const t = summarise(ok(all).map((x) => x.spawnSeconds));
    return { label: sut.label, median: t.median, min: t.min, max: t.max };
  });
  return { md, checks, bars };
}
