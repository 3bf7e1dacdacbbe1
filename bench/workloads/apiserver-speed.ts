// Workload 5: the embedded API server itself — time to listening, creates per second (sequential and 8
// concurrent clients), one unpaginated list of N objects, and watch event latency with W watchers
// (create sent → ADDED received, in the driver's clock).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { progress } from '../lib/progress.js';
import { percentile, summarise, type Summary } from '../lib/stats.js';
import { formatNumber, formatRatio, markdownTable } from '../lib/table.js';
import { placesFor } from '../lib/places.js';
import { embeddedTarget, forEachConcurrent, type Target } from '../lib/target.js';
import { configMapsPath } from '../lib/website.js';
import { timeCliRestart } from './cli-restart.js';
import { floodResult, measureHealthUnderFlood } from './healthz-under-flood.js';

interface ServerSamples {
  listeningMs: number[];
  startApiServerMs: number[];
  createsSequential: number[];
  createsConcurrent: number[];
  listMs: number[];
  watchP50Ms: number[];
  watchP99Ms: number[];
}

function configMap(name: string, namespace: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels: { bench: 'apiserver' } },
    data: { payload: 'x'.repeat(256) },
  };
}

async function createRate(
  target: Target,
  prefix: string,
  count: number,
  concurrency: number,
): Promise<number> {
  const path = configMapsPath(target.namespace);
  const started = performance.now();
  await forEachConcurrent(count, concurrency, async (i) => {
    await target.rest.request('POST', path, configMap(`${prefix}-${i}`, target.namespace));
  });
  return count / ((performance.now() - started) / 1000);
}

async function watchLatency(
  target: Target,
  ctx: BenchContext,
  run: number,
): Promise<{ p50: number; p99: number }> {
  const path = configMapsPath(target.namespace);
  const list = await target.rest.request('GET', `${path}?limit=1`);
  const rv: string = list.metadata.resourceVersion;
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const abort = new AbortController();
  const prefix = `watch-${run}-`;
  const expected = ctx.sizes.serverWatchers * ctx.sizes.serverWatchEvents;
  let allSeen!: () => void;
  const seen = new Promise<void>((r) => (allSeen = r));
  const opened: Promise<void>[] = [];
  const streams: Promise<void>[] = [];
  for (let w = 0; w < ctx.sizes.serverWatchers; w++) {
    let onOpen!: () => void;
    opened.push(new Promise<void>((r) => (onOpen = r)));
    streams.push(
      target.rest
        .watch(
          `${path}?watch=true&resourceVersion=${rv}`,
          abort.signal,
          (type, object) => {
            const name: string = object?.metadata?.name ?? '';
            const at = sentAt.get(name);
            if (type !== 'ADDED' || at === undefined || !name.startsWith(prefix)) return;
            latencies.push(performance.now() - at);
            if (latencies.length >= expected) allSeen();
          },
          onOpen,
        )
        .catch(() => undefined),
    );
  }
  await Promise.all(opened);
  for (let i = 0; i < ctx.sizes.serverWatchEvents; i++) {
    const name = `${prefix}${i}`;
    sentAt.set(name, performance.now());
    await target.rest.request('POST', path, configMap(name, target.namespace));
  }
  await Promise.race([seen, new Promise((r) => setTimeout(r, 30_000))]);
  abort.abort();
  await Promise.allSettled(streams);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function measure(
  ctx: BenchContext,
  makeTarget: () => Promise<Target>,
  where: string,
): Promise<ServerSamples> {
  const s: ServerSamples = {
    listeningMs: [],
    startApiServerMs: [],
    createsSequential: [],
    createsConcurrent: [],
    listMs: [],
    watchP50Ms: [],
    watchP99Ms: [],
  };
  for (let run = 1; run <= ctx.sizes.runs; run++) {
    const target = await makeTarget();
    try {
      if (target.listening) {
        s.listeningMs.push(target.listening.processMs);
        s.startApiServerMs.push(target.listening.startMs);
      }
      s.createsSequential.push(await createRate(target, `seq-${run}`, ctx.sizes.serverCreates, 1));
      s.createsConcurrent.push(await createRate(target, `conc-${run}`, ctx.sizes.serverCreates, 8));
      const toList = ctx.sizes.serverListObjects - 2 * ctx.sizes.serverCreates;
      if (toList > 0) await createRate(target, `list-${run}`, toList, 8);
      const listStarted = performance.now();
      const list = await target.rest.request('GET', configMapsPath(target.namespace));
      s.listMs.push(performance.now() - listStarted);
      if (list.items.length < ctx.sizes.serverListObjects)
        throw new Error(`listed ${list.items.length} objects`);
      const watch = await watchLatency(target, ctx, run);
      s.watchP50Ms.push(watch.p50);
      s.watchP99Ms.push(watch.p99);
      progress(
        `workload 5 [${where}] run ${run}/${ctx.sizes.runs}: ${formatNumber(s.createsSequential.at(-1), 0)} creates/s ` +
          `sequential, ${formatNumber(s.createsConcurrent.at(-1), 0)}/s with 8 clients, list ${formatNumber(s.listMs.at(-1), 0)} ms, ` +
          `watch p50 ${formatNumber(watch.p50, 2)} ms p99 ${formatNumber(watch.p99, 2)} ms`,
      );
    } finally {
      await target.close();
    }
  }
  return s;
}

/**
 * Workload 5 on a server started with `--data` (a fresh data file per run), and the restart: after each
 * run a new server process on the same file, timed from fork to listening with every object reloaded.
 */
async function measureDurable(
  ctx: BenchContext,
): Promise<{ samples: ServerSamples; restartMs: number[]; cliRestartMs: number[] }> {
  const restartMs: number[] = [];
  const cliRestartMs: number[] = [];
  let run = 0;
  const samples = await measure(
    ctx,
    async () => {
      run += 1;
      const dir = mkdtempSync(join(tmpdir(), 'rk-bench-data-'));
      const dataFile = join(dir, 'data.json');
      const target = await embeddedTarget({ installCrd: false, dataFile });
      return {
        ...target,
        close: async () => {
          await target.close();
          const again = await embeddedTarget({ installCrd: false, dataFile });
          restartMs.push(again.listening?.processMs ?? Number.NaN);
          const reloaded = await again.rest.request('GET', configMapsPath(again.namespace) + '?limit=1');
          if ((reloaded.items ?? []).length === 0)
            throw new Error(`run ${run}: nothing reloaded from ${dataFile}`);
          await again.close();
          cliRestartMs.push(await timeCliRestart(dataFile));
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
    'embedded --data',
  );
  return { samples, restartMs, cliRestartMs };
}

/** Runs workload 5 on the embedded server (and on the KUBECONFIG cluster when set). */
export async function runApiServerSpeed(ctx: BenchContext): Promise<WorkloadResult> {
  const sz = ctx.sizes;
  progress(`workload 5: embedded API server, ${sz.runs} runs`);
  const results: [string, ServerSamples][] = [];
  let restartMs: number[] = [];
  let cliRestartMs: number[] = [];
  let flood: ReturnType<typeof floodResult> | undefined;
  for (const place of placesFor(ctx, { installCrd: false })) {
    const samples = await measure(ctx, () => place.make(), place.name).finally(() => place.dispose());
    results.push([place.name === 'embedded' ? 'embedded API server' : 'cluster from KUBECONFIG', samples]);
    if (place.name === 'embedded') {
      // The same server persisting with `--data`: every acknowledged write fsynced (group commit).
      const durable = await measureDurable(ctx);
      results.push(['embedded, --data (fsynced journal)', durable.samples]);
      restartMs = durable.restartMs;
      cliRestartMs = durable.cliRestartMs;
      flood = floodResult(await measureHealthUnderFlood(ctx));
    }
  }
  const summaries = results.map(
    ([name, s]) =>
      [name, Object.fromEntries(Object.entries(s).map(([k, v]) => [k, summarise(v as number[])]))] as const,
  );
  const base = summaries[0]![1] as Record<keyof ServerSamples, Summary>;
  const rows = summaries.map(([name, sum]) => {
    const m = sum as Record<keyof ServerSamples, Summary>;
    return {
      system: name,
      cells: [
        m.listeningMs.samples.length > 0 ? m.listeningMs : undefined,
        m.startApiServerMs.samples.length > 0 ? m.startApiServerMs : undefined,
        m.createsSequential,
        m.createsConcurrent,
        m.listMs,
        m.watchP50Ms,
        m.watchP99Ms,
        formatRatio(m.createsConcurrent.median, base.createsConcurrent.median, 2),
      ],
    };
  });
  const md = markdownTable(
    [
      { heading: 'ms fork → listening', digits: 0 },
      { heading: 'ms in startApiServer()', digits: 1 },
      { heading: 'creates/s, sequential', digits: 0 },
      { heading: 'creates/s, 8 clients', digits: 0 },
      { heading: `ms to list ${sz.serverListObjects}`, digits: 1 },
      { heading: `watch p50 ms (${sz.serverWatchers} watchers)`, digits: 2 },
      { heading: 'watch p99 ms', digits: 2 },
      { heading: 'creates/s (8) ÷ embedded', digits: 2 },
    ],
    rows,
  );
  const targets: TargetCheck[] = [];
  const restart = summarise(restartMs);
  if (restartMs.length > 0) {
    targets.push({
      target: `restart with --data (fork → listening, ${sz.serverListObjects} objects reloaded) ≤ 1 s (median)`,
      actual: `${formatNumber(restart.median, 0)} ms (${formatNumber(restart.min, 0)}–${formatNumber(restart.max, 0)})`,
      met: restart.median <= 1000,
    });
  }
  const cliRestart = summarise(cliRestartMs);
  if (cliRestartMs.length > 0) {
    targets.push({
      target: `restart of \`reconcilekit apiserver --data\` (spawn → /healthz 200, ${sz.serverListObjects} objects) ≤ 1 s (median)`,
      actual: `${formatNumber(cliRestart.median, 0)} ms (${formatNumber(cliRestart.min, 0)}–${formatNumber(cliRestart.max, 0)})`,
      met: cliRestart.median <= 1000,
    });
  }
  const durableNote =
    restartMs.length > 0
      ? `\n\nThe \`--data\` row persists every write to an fsynced journal before answering (group commit: one ` +
        `fsync for the writes of a tick); its ratio is the durability cost. Restart: a new server on the same ` +
        `file, fork to listening with every object reloaded.`
      : '';
  if (flood) targets.push(flood.target);
  const floodNote = flood ? `\n\n${flood.note}` : '';
  return {
    id: 5,
    title: 'Embedded API server: start, create rate, list, watch latency',
    markdown: `${md}${durableNote}${floodNote}\n\n${targetLines(targets)}`,
    targets,
    raw: {
      sizes: {
        creates: sz.serverCreates,
        list: sz.serverListObjects,
        watchers: sz.serverWatchers,
        events: sz.serverWatchEvents,
      },
      results: Object.fromEntries(summaries),
      restartMs: restart,
      cliRestartMs: cliRestart,
      healthzUnderFlood: flood?.raw,
    },
  };
}
