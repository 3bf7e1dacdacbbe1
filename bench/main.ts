// `make bench`: runs the workloads of issue 6, prints one markdown table per workload on stdout (progress on
// stderr) and writes the raw numbers to bench/results/<date>.json.
//
// usage: node dist/bench/main.js [--quick | --tiny] [--only 1,2,...] [--runs N] [--out DIR | --no-write]
//                                [--cpu-prof DIR] [--systems reconcilekit-8,reconcilekit-1,dot-i,hand-written]
//                                [--sizes 2000,10000] (workload 9's object counts)
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { BenchContext, WorkloadResult } from './lib/bench-context.js';
import { FULL_SIZES, QUICK_SIZES, TINY_SIZES } from './lib/bench-sizes.js';
import { progress } from './lib/progress.js';
import { startRealBackend, type RealBackend } from './lib/real-backend.js';
import { renderSvg } from './lib/svg-plot.js';

const WORKLOADS: Record<number, () => Promise<(ctx: BenchContext) => Promise<WorkloadResult>>> = {
  1: async () => (await import('./workloads/engine-overhead.js')).runEngineOverhead,
  2: async () => (await import('./workloads/end-to-end.js')).runEndToEnd,
  3: async () => (await import('./workloads/burst-coalescing.js')).runBurstCoalescing,
  4: async () => (await import('./workloads/memory.js')).runMemory,
  5: async () => (await import('./workloads/apiserver-speed.js')).runApiServerSpeed,
  6: async () => (await import('./workloads/declarative.js')).runDeclarative,
  7: async () => (await import('./workloads/scale.js')).runScale,
  8: async () => (await import('./workloads/plan.js')).runPlan,
  9: async () => (await import('./workloads/user-idiom.js')).runUserIdiom,
  10: async () => (await import('./workloads/sharding-ring.js')).runShardingRing,
  13: async () => (await import('./workloads/large-caches.js')).runLargeCaches,
  14: async () => (await import('./workloads/priority-queue.js')).runPriorityQueue,
  15: async () => (await import('./workloads/field-index.js')).runFieldIndex,
  16: async () => (await import('./workloads/admission.js')).runAdmission,
  17: async () => (await import('./workloads/sharded-memory.js')).runShardedMemory,
};

/** The machine a run happened on, for the report. */
function machine(): Record<string, unknown> {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cpus: cpus.length,
    availableParallelism: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
}

/** The real backend this run started (stopped at the end, also on failure). */
let real: RealBackend | undefined;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      tiny: { type: 'boolean', default: false },
      only: { type: 'string' },
      runs: { type: 'string' },
      out: { type: 'string', default: 'bench/results' },
      'no-write': { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
      systems: { type: 'string' },
      sizes: { type: 'string' },
      // The real kube-apiserver + etcd of envtest/build.sh: used when built and KUBECONFIG is unset.
      'no-real': { type: 'boolean', default: false },
    },
  });
  const mode = values.tiny ? 'tiny' : values.quick ? 'quick' : 'full';
  const sizes = { ...(mode === 'tiny' ? TINY_SIZES : mode === 'quick' ? QUICK_SIZES : FULL_SIZES) };
  if (values.runs !== undefined) sizes.runs = Number(values.runs);
  const profileDir = values['cpu-prof'] === undefined ? undefined : resolve(values['cpu-prof']);
  if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
  let clusterKubeconfig =
    process.env.KUBECONFIG === undefined || process.env.KUBECONFIG === ''
      ? undefined
      : process.env.KUBECONFIG;
  if (clusterKubeconfig === undefined && !values['no-real']) {
    real = await startRealBackend();
    clusterKubeconfig = real?.kubeconfigPath;
  }
  const systems = values.systems?.split(',');
  const ctx: BenchContext = { sizes, mode, clusterKubeconfig, profileDir, systems };
  if (values.runs !== undefined) ctx.runsOverride = Number(values.runs);
  if (values.sizes !== undefined) ctx.idiomSizes = values.sizes.split(',').map(Number);
  if (real !== undefined) {
    ctx.clusterTitle = real.title;
    const backend = real;
    ctx.restartRealApiServer = () => backend.restartApiServer();
  }
  const only =
    values.only === undefined ? Object.keys(WORKLOADS).map(Number) : values.only.split(',').map(Number);
  const info = machine();
  progress(
    `reconcilekit bench (${mode}): workloads ${only.join(', ')} on ${String(info.cpus)} × ${String(info.cpuModel)}, node ${process.version}` +
      (clusterKubeconfig === undefined
        ? ''
        : real !== undefined
          ? `; also against ${real.title}`
          : `; also against the cluster of KUBECONFIG=${clusterKubeconfig}`),
  );

  const startedAt = new Date();
  const stamp = startedAt
    .toISOString()
    .replace(/:/g, '-')
    .replace(/\.\d+Z$/, 'Z');
  const file = join(values.out, `${stamp}${mode === 'quick' ? '-quick' : ''}.json`);
  const write = !values['no-write'] && mode !== 'tiny';
  const results: WorkloadResult[] = [];
  for (const id of only) {
    const load = WORKLOADS[id];
    if (load === undefined) throw new Error(`unknown workload ${id} (${Object.keys(WORKLOADS).join(', ')})`);
    const run = await load();
    const result = await run(ctx);
    results.push(result);
    process.stdout.write(`\n### Workload ${result.id}: ${result.title}\n\n${result.markdown}\n`);
    // Written after every workload, so a long run interrupted later still leaves its numbers.
    if (write) {
      mkdirSync(values.out, { recursive: true });
      const payload = {
        startedAt: startedAt.toISOString(),
        finished: results.length === only.length,
        mode,
        sizes,
        machine: info,
        cluster: clusterKubeconfig !== undefined,
        workloads: results,
      };
      writeFileSync(file, `${JSON.stringify(payload, null, 2)}\n`);
      if (result.plot !== undefined) {
        const svg = renderSvg(result.plot);
        writeFileSync(file.replace(/\.json$/, `-workload-${result.id}.svg`), svg);
        // A full run also refreshes the plots docs/benchmarks.md shows.
        if (mode === 'full') {
          mkdirSync('docs/benchmarks', { recursive: true });
          writeFileSync(join('docs/benchmarks', `workload-${result.id}.svg`), svg);
        }
      }
    }
  }
  const missed = results.flatMap((r) => r.targets.filter((t) => !t.met));
  process.stdout.write(
    `\nMachine: ${String(info.cpus)} × ${String(info.cpuModel)}, ${String(info.memoryGiB)} GiB, ${String(info.platform)}, node ${process.version}; ` +
      `mode ${mode}, ${sizes.runs} runs per system, ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s in all.\n` +
      `Targets: ${results.flatMap((r) => r.targets).length - missed.length} met, ${missed.length} missed.\n`,
  );
  if (write) progress(`raw numbers written to ${file}`);
  await real?.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    process.stderr.write(
      `bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    await real?.close().catch(() => undefined);
    process.exit(1);
  },
);
