// Workload 3: while the operator runs, N merge patches to one Website as fast as the driver can send them
// (16 in flight over keep-alive connections). Count reconciles / handler calls and the time from the last
// patch's answer to convergence (ConfigMap holds the final content, observedGeneration == the last generation).
import { performance } from 'node:perf_hooks';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { ConvergenceTracker } from '../lib/convergence-tracker.js';
import { RECONCILEKIT_8, selectedSystems, loadOperator, type SystemUnderTest } from '../lib/operator-run.js';
import { progress } from '../lib/progress.js';
import { summarise } from '../lib/stats.js';
import { formatNumber, formatRatio, markdownTable } from '../lib/table.js';
import { placesFor, placeTitle } from '../lib/places.js';
import type { PlotGroup } from '../lib/svg-plot.js';
import { forEachConcurrent, seedWebsites, type Target } from '../lib/target.js';
import { websitesPath, type Website } from '../lib/website.js';

interface BurstSamples {
  reconciles: number[];
  lagMs: number[];
  patchSeconds: number[];
  failures: string[];
}

const SITE = 'site-00000';
/** Patches in flight at once: "as fast as possible" from one driver over keep-alive connections. */
const BURST_CLIENTS = 16;

async function settledCount(count: () => Promise<{ calls: number }>, quietMs: number): Promise<number> {
  let last = (await count()).calls;
  let stableSince = performance.now();
  const deadline = performance.now() + 120_000;
  while (performance.now() - stableSince < quietMs && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    const now = (await count()).calls;
    if (now !== last) {
      last = now;
      stableSince = performance.now();
    }
  }
  return last;
}

async function oneRun(
  ctx: BenchContext,
  makeTarget: () => Promise<Target>,
  sut: SystemUnderTest,
  out: BurstSamples,
): Promise<void> {
  const target = await makeTarget();
  const tracker = new ConvergenceTracker(target.rest, target.namespace);
  try {
    await seedWebsites(target, 1);
    await tracker.start();
    const operator = await loadOperator(ctx, target, sut, 'burst');
    try {
      operator.start();
      await tracker.until(() => tracker.isConverged(SITE), 60_000);
      const before = await settledCount(() => operator.count(), ctx.sizes.burstQuietMs);
      const path = `${websitesPath(target.namespace)}/${SITE}`;
      const firstAt = performance.now();
      await forEachConcurrent(ctx.sizes.burstPatches, BURST_CLIENTS, async (i) => {
        await target.rest.request(
          'PATCH',
          path,
          { spec: { content: `burst ${i}` } },
          { contentType: 'application/merge-patch+json' },
        );
      });
      const lastAt = performance.now();
      // Every patch changes the spec, so the last generation is known once all patches are answered.
      const final = await target.rest.request<Website>('GET', path);
      const finalGeneration = final.metadata.generation ?? Number.POSITIVE_INFINITY;
      const convergedAt = await tracker.until(
        () =>
          tracker.isConverged(SITE) && (tracker.sites.get(SITE)?.metadata.generation ?? 0) >= finalGeneration,
        300_000,
      );
      const after = await settledCount(() => operator.count(), ctx.sizes.burstQuietMs);
      out.reconciles.push(after - before);
      out.lagMs.push(Math.max(0, convergedAt - lastAt));
      out.patchSeconds.push((lastAt - firstAt) / 1000);
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

/** Runs workload 3 on the embedded server (and on the KUBECONFIG cluster when set). */
export async function runBurstCoalescing(ctx: BenchContext): Promise<WorkloadResult> {
  const n = ctx.sizes.burstPatches;
  progress(
    `workload 3: burst coalescing, ${n} merge patches to one Website, ${ctx.sizes.runs} runs per system`,
  );
  const parts: string[] = [];
  const targets: TargetCheck[] = [];
  const raw: Record<string, unknown> = {};
  const groups: PlotGroup[] = [];
  for (const place of placesFor(ctx)) {
    const name = place.name;
    const samples = new Map<SystemUnderTest, BurstSamples>(
      selectedSystems(ctx).map((s) => [s, { reconciles: [], lagMs: [], patchSeconds: [], failures: [] }]),
    );
    for (let run = 1; run <= ctx.sizes.runs; run++) {
      for (const sut of selectedSystems(ctx)) {
        const out = samples.get(sut)!;
        await oneRun(ctx, () => place.make(), sut, out);
        progress(
          `workload 3 [${name}] run ${run}/${ctx.sizes.runs} ${sut.label}: ${out.reconciles.at(-1) ?? 'n/a'} reconciles, ` +
            `converged ${formatNumber(out.lagMs.at(-1), 0)} ms after the last patch`,
        );
      }
    }
    await place.dispose();
    const baseSamples = samples.get(RECONCILEKIT_8);
    const base = baseSamples ? summarise(baseSamples.reconciles).median : Number.NaN;
    const rows = [...samples].map(([sut, s]) => ({
      system: sut.label,
      cells: [
        summarise(s.reconciles),
        summarise(s.lagMs),
        summarise(s.patchSeconds),
        s.failures.length,
        formatRatio(summarise(s.reconciles).median, base, 1),
      ],
    }));
    const md = markdownTable(
      [
        { heading: 'reconciles / handler calls', digits: 0 },
        { heading: 'ms from last patch to converged', digits: 0 },
        { heading: `s to send ${n} patches`, digits: 2 },
        { heading: 'failed runs', digits: 0 },
        { heading: 'calls ÷ reconcilekit (8 workers)', digits: 1 },
      ],
      rows,
    );
    parts.push(`**${placeTitle(place)}** (${n} patches, ${BURST_CLIENTS} in flight)\n\n${md}`);
    groups.push({
      title: `${placeTitle(place)}: ms from the last patch to converged`,
      bars: [...samples].map(([sut, s]) => {
        const lag = summarise(s.lagMs);
        return { label: sut.label, median: lag.median, min: lag.min, max: lag.max };
      }),
    });
    for (const sut of selectedSystems(ctx).filter((s) => s.system === 'reconcilekit')) {
      const s = samples.get(sut)!;
      const rec = summarise(s.reconciles).median;
      const lag = summarise(s.lagMs).median;
      targets.push({
        target: `[${name}] ${sut.label}: ≤ 10 reconciles and converged within 1 s of the last patch`,
        actual: `${formatNumber(rec, 0)} reconciles, ${formatNumber(lag, 0)} ms`,
        met: rec <= 10 && lag <= 1000 && s.failures.length === 0,
      });
    }
    raw[name] = Object.fromEntries([...samples].map(([sut, s]) => [sut.label, s]));
  }
  return {
    id: 3,
    title: 'Burst coalescing: N merge patches to one object',
    markdown: `${parts.join('\n\n')}\n\n${targetLines(targets)}`,
    targets,
    raw: { patches: n, ...raw },
    plot: { title: `Workload 3: burst of ${n} patches to one object`, unit: 'ms', groups },
  };
}
