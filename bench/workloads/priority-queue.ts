// Workload 14: a user's change while a large initial list is being worked off, on the real kube-apiserver.
// N ConfigMaps exist; a Controller (4 workers, as docs/controller.md teaches) starts and writes an annotation
// on each — its initial list. Meanwhile a driver keeps 8 patches in flight to 200 "hot" objects (a continuous
// stream of user changes) and, every 2 s, changes one object at the end of the list (a probe): the time from
// the probe's write to its reconcile is the latency a user sees, split into the watch's delivery (write → the
// event reaches the operator, seen by a pass-through predicate) and the wait in the queue (event → pass).
// Runs alternate queueOrder 'priority' and 'fifo'. Also measured: the aging bound — every list key is queued
// before the workers start, so each has had its first pass within 4 × (N + 1) passes, whatever the stream —
// and when every list key had been reconciled without error once (a failed pass is retried as a new entry:
// the bound is about hand-outs, not successes).
// Diagnostics per run (raw numbers and the progress line): the time to sync, event-loop delay (histogram and
// stalls over 100 ms) and, per probe, the keys waiting at the default priority when its event arrived.
// Knobs for a short diagnostic run, not for the table: PQ_N (objects), PQ_ORDERS (e.g. "priority"),
// PQ_PROBES (end each run after that many probes), PQ_WAIT_S (how long a run waits for its probes' passes
// after the last probe; default 60), PQ_NAMESPACE (use, and keep, this namespace: seeded once, reused by
// later runs against the same cluster).
// PQ_STREAM=0: no stream of changes to hot objects — the probe is then the only user change, which is the
// done-when line's scenario (a user's change cannot, and should not, overtake user changes queued before it
// at its own priority, so the stream measures something else: no starvation, and the wait behind them).
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import os from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import { Controller, ObjectClient, clientKey, createLogger, type WorkQueueOrder } from 'reconcilekit';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { progress } from '../lib/progress.js';
import { percentile } from '../lib/stats.js';

interface ConfigMap {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: {
    name: string;
    namespace: string;
    annotations?: Record<string, string>;
    resourceVersion?: string;
  };
  data?: Record<string, string>;
}

interface Probe {
  value: string;
  /** When the write was sent. */
  wroteAt: number;
  /** When the operator's watch delivered the probe's change (its predicate saw it). */
  eventAt?: number;
  /** When a pass ran on the changed object. */
  seenAt?: number;
  /** Keys waiting at the default priority when the event arrived (diagnostic). */
  aheadAtEvent?: number;
}

interface RunFigures {
  order: WorkQueueOrder;
  objects: number;
  /** Probe write → its pass (ms); Infinity for a probe never reconciled. */
  probeLatencyMs: number[];
  /** Probe write → its watch event in the operator (ms). */
  probeEventMs: number[];
  /** Probe event → its pass (ms): the wait in the queue. */
  probeQueueMs: number[];
  /** When every list key had had its first pass (s from start), and the passes by then. */
  firstPassesEndS: number;
  passesByFirstPassesEnd: number;
  /** When every list key had been reconciled without error once (s from start), and the passes by then. */
  listCompletedS: number;
  passesByListEnd: number;
  /** Passes that threw (the reconciler's write failed). */
  failedPasses: number;
  /** Passes by the list's end: first passes of list keys, passes of hot objects after their first. */
  firstPasses: number;
  hotPasses: number;
  streamWrites: number;
  /** start() → resolved: the initial list in the cache (s). */
  syncS: number;
  /** Event-loop stalls over 100 ms (a timer late by that much): [s from start, ms], and the delay histogram. */
  stalls: [number, number][];
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  /** Per probe: s from start of its write (to tell the early probes, during the sync's aftermath, apart). */
  probeAtS: number[];
  probeAheadAtEvent: number[];
  /** When the run ended (s from start) and the list keys that had had their first pass by then. */
  endS: number;
  firstPassesAtEnd: number;
  load: string;
}

const HOT = 200;
const STREAM_IN_FLIGHT = 8;
const PROBE_EVERY_MS = 2_000;
const WORKERS = 4;

function loadAvg(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

async function concurrently(n: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < n; i = next++) await fn(i);
    }),
  );
}

const name = (i: number): string => `cm-${String(i).padStart(6, '0')}`;

async function oneRun(
  kubeConfig: KubeConfig,
  client: ObjectClient,
  namespace: string,
  n: number,
  order: WorkQueueOrder,
  runId: string,
): Promise<RunFigures> {
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace } as const;
  const hotKeys = new Set(Array.from({ length: HOT }, (_, i) => `${namespace}/${name(i)}`));
  const firstPassed = new Set<string>();
  const done = new Set<string>();
  let passes = 0;
  let failedPasses = 0;
  let hotPasses = 0;
  let passesByFirstPassesEnd = 0;
  let firstPassesEndAt = 0;
  let passesByListEnd = 0;
  let hotPassesByListEnd = 0;
  let listEndAt = 0;
  const probes = new Map<string, Probe>();
  const controller = new Controller<ConfigMap>({
    name: `pq-${order}`,
    kubeConfig,
    resource: ref,
    workers: WORKERS,
    queueOrder: order,
    logger: createLogger({ silent: true }),
    // Passes every event; notes when a probe's change reaches the operator.
    predicates: [
      (event) => {
        if (event.type === 'delete') return true;
        const probe = probes.get(event.object.metadata.name);
        if (probe !== undefined && probe.eventAt === undefined && event.object.data?.probe === probe.value) {
          probe.eventAt = performance.now();
          probe.aheadAtEvent = defaultDepth();
        }
        return true;
      },
    ],
    reconciler: async (ctx, req) => {
      passes += 1;
      if (!firstPassed.has(req.key)) {
        firstPassed.add(req.key);
        if (firstPassed.size === n) {
          firstPassesEndAt = performance.now();
          passesByFirstPassesEnd = passes;
        }
      } else if (hotKeys.has(req.key)) hotPasses += 1;
      const probe = probes.get(req.object.metadata.name);
      if (probe !== undefined && probe.seenAt === undefined && req.object.data?.probe === probe.value) {
        probe.seenAt = performance.now();
      }
      if (req.object.metadata.annotations?.['bench/run'] !== runId) {
        try {
          await ctx
            .get(clientKey)
            ?.patch(
              { ...ref, name: req.object.metadata.name },
              { metadata: { annotations: { 'bench/run': runId } } },
              'merge',
            );
        } catch (err) {
          failedPasses += 1;
          throw err;
        }
      }
      if (!done.has(req.key)) {
        done.add(req.key);
        if (done.size === n) {
          listEndAt = performance.now();
          passesByListEnd = passes;
          hotPassesByListEnd = hotPasses;
        }
      }
    },
  });
  // Keys waiting at the default priority: the live view's pool snapshot, read directly (debugState() also
  // sorts every waiting key, which would slow the very event being measured).
  const defaultDepth = (): number => {
    const pool = (
      controller.core as unknown as {
        pool?: { snapshot(): { depthByPriority: { priority: number; depth: number }[] } };
      }
    ).pool;
    return pool?.snapshot().depthByPriority.find((d) => d.priority === 0)?.depth ?? -1;
  };
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const stalls: [number, number][] = [];
  let tickAt = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    if (now - tickAt > 120) stalls.push([(tickAt - startedAt) / 1000, now - tickAt - 20]);
    tickAt = now;
  }, 20);
  const startedAt = performance.now();
  await controller.start();
  const syncS = (performance.now() - startedAt) / 1000;
  let streaming = true;
  let streamWrites = 0;
  const streamOn = process.env.PQ_STREAM !== '0';
  const stream = concurrently(streamOn ? Number.MAX_SAFE_INTEGER : 0, STREAM_IN_FLIGHT, async (i) => {
    if (!streaming) throw new Error('stop');
    await client.patch({ ...ref, name: name(i % HOT) }, { data: { hot: `${runId}-${i}` } }, 'merge');
    streamWrites += 1;
  }).catch(() => undefined);
  // Probes: objects near the end of the list (the FIFO runs them last), one every PROBE_EVERY_MS.
  let probeIndex = n - 1;
  const probeLimit = Number(process.env.PQ_PROBES ?? Number.POSITIVE_INFINITY);
  while (done.size < n && performance.now() - startedAt < 900_000 && probes.size < probeLimit) {
    await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    if (done.size >= n) break;
    const target = name(probeIndex--);
    const entry: Probe = { value: `${runId}-${probeIndex}`, wroteAt: 0 };
    probes.set(target, entry);
    // From when the write is sent (its round trip included): under load the event and the pass can come
    // before the client has the write's answer, and a time taken from the answer would then read 0.
    entry.wroteAt = performance.now();
    await client.patch({ ...ref, name: target }, { data: { probe: entry.value } }, 'merge');
  }
  streaming = false;
  await stream;
  const waitUntil = performance.now() + Number(process.env.PQ_WAIT_S ?? 60) * 1000;
  while ([...probes.values()].some((p) => p.seenAt === undefined) && performance.now() < waitUntil) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const load = loadAvg();
  const endS = (performance.now() - startedAt) / 1000;
  const firstPassesAtEnd = firstPassed.size;
  clearInterval(ticker);
  histogram.disable();
  await controller.stop();
  const all = [...probes.values()];
  // Times start when the write is sent, so none is negative; clamped all the same.
  const since = (from: number, to: number | undefined): number =>
    to === undefined ? Number.POSITIVE_INFINITY : Math.max(0, to - from);
  return {
    order,
    objects: n,
    probeLatencyMs: all.map((p) => since(p.wroteAt, p.seenAt)),
    probeEventMs: all.map((p) => since(p.wroteAt, p.eventAt)),
    probeQueueMs: all.map((p) => since(p.eventAt ?? p.wroteAt, p.seenAt)),
    firstPassesEndS: (firstPassesEndAt - startedAt) / 1000,
    passesByFirstPassesEnd,
    listCompletedS: (listEndAt - startedAt) / 1000,
    passesByListEnd,
    failedPasses,
    firstPasses: n,
    hotPasses: hotPassesByListEnd,
    streamWrites,
    syncS,
    stalls,
    loopDelayP99Ms: histogram.percentile(99) / 1e6,
    loopDelayMaxMs: histogram.max / 1e6,
    probeAtS: all.map((p) => (p.wroteAt - startedAt) / 1000),
    probeAheadAtEvent: all.map((p) => p.aheadAtEvent ?? -1),
    endS,
    firstPassesAtEnd,
    load,
  };
}

/** Workload 14 (priority queue vs FIFO at N objects). */
export async function runPriorityQueue(ctx: BenchContext): Promise<WorkloadResult> {
  const title = 'Priority queue: a user change during a large initial list (real kube-apiserver)';
  if (ctx.clusterKubeconfig === undefined) {
    return {
      id: 14,
      title,
      markdown: '_skipped: no real kube-apiserver (make envtest-assets)_',
      targets: [],
      raw: {},
    };
  }
  const n = Number(process.env.PQ_N ?? (ctx.mode === 'full' ? 50_000 : ctx.mode === 'quick' ? 5_000 : 500));
  const runs = ctx.runsOverride ?? 1;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(ctx.clusterKubeconfig);
  const client = new ObjectClient({ kubeConfig });
  const kept = process.env.PQ_NAMESPACE;
  const namespace = kept ?? `pq-${Date.now().toString(36)}`;
  const seeded =
    kept !== undefined &&
    (
      await client.list(
        { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace },
        { limit: 1 },
      )
    ).items.length > 0;
  if (!seeded) {
    await client
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
      .catch((e: unknown) => {
        if (kept === undefined) throw e;
      });
  }
  const seedStart = performance.now();
  await concurrently(seeded ? 0 : n, 64, async (i) => {
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: name(i), namespace },
      data: { n: String(i) },
    });
  });
  progress(
    `workload 14: ${n} ConfigMaps created in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
  );
  const figures: RunFigures[] = [];
  for (let r = 0; r < runs; r++) {
    for (const order of (process.env.PQ_ORDERS ?? 'priority,fifo').split(',') as WorkQueueOrder[]) {
      const f = await oneRun(
        kubeConfig,
        client,
        namespace,
        n,
        order,
        `${order}-${r}-${Date.now().toString(36)}`,
      );
      progress(
        `workload 14 ${order}: probe p50 ${percentile(f.probeLatencyMs, 50).toFixed(0)} ms, max ${Math.max(...f.probeLatencyMs).toFixed(0)} ms; list in ${f.listCompletedS.toFixed(1)} s after ${f.passesByListEnd} passes; synced in ${f.syncS.toFixed(2)} s; loop delay p99 ${f.loopDelayP99Ms.toFixed(0)} ms, max ${f.loopDelayMaxMs.toFixed(0)} ms; first probes (at s: ms total/event/queue, default-priority keys ahead) ${f.probeLatencyMs
          .slice(0, 4)
          .map(
            (ms, i) =>
              `${f.probeAtS[i]?.toFixed(1)}: ${ms.toFixed(0)}/${f.probeEventMs[i]?.toFixed(0)}/${f.probeQueueMs[i]?.toFixed(0)}, ${f.probeAheadAtEvent[i]}`,
          )
          .join(
            '; ',
          )}; ended at ${f.endS.toFixed(1)} s with ${f.firstPassesAtEnd} of ${n} list keys passed; stalls > 100 ms in the first 20 s ${JSON.stringify(f.stalls.filter(([at]) => at < 20).map(([at, ms]) => [Number(at.toFixed(1)), Math.round(ms)]))}; load ${f.load}`,
      );
      figures.push(f);
    }
  }
  if (kept === undefined) {
    await client
      .delete({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces', name: namespace })
      .catch(() => undefined);
  }
  client.close();
  const p50 = (values: readonly number[]): string => percentile(values, 50).toFixed(0);
  const rows = figures.map(
    (f) =>
      `| ${f.order} | ${f.objects} | ${f.probeLatencyMs.length} | ${p50(f.probeLatencyMs)} | ${Math.max(...f.probeLatencyMs).toFixed(0)} | ${p50(f.probeEventMs)} | ${p50(f.probeQueueMs)} | ${f.firstPassesEndS.toFixed(1)} | ${f.passesByFirstPassesEnd} (${(f.passesByFirstPassesEnd / (f.objects + 1)).toFixed(2)} × (N + 1)) | ${f.listCompletedS.toFixed(1)} | ${f.passesByListEnd} (${f.hotPasses} hot) | ${f.failedPasses} | ${f.streamWrites} | ${f.load} |`,
  );
  const markdown = [
    '| queueOrder | objects | probes | probe write → pass p50 (ms) | max (ms) | write → event p50 (ms) | event → pass p50 (ms) | every list key had a pass (s) | passes by then (bound 4 × (N + 1)) | every key reconciled without error (s) | passes by then | failed passes | stream writes | load (1/5/15 min) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  const pq = figures.filter((f) => f.order === 'priority');
  const worstProbe = Math.max(...pq.flatMap((f) => f.probeLatencyMs));
  const medianProbe = percentile(
    pq.flatMap((f) => f.probeLatencyMs),
    50,
  );
  const worstAt = pq.flatMap((f) => f.probeLatencyMs.map((ms, i) => ({ ms, ahead: f.probeAheadAtEvent[i] })));
  const worstAhead = worstAt.reduce((a, b) => (b.ms > a.ms ? b : a), { ms: -1, ahead: -1 }).ahead;
  const worstRatio = Math.max(...pq.map((f) => f.passesByFirstPassesEnd / (f.objects + 1)));
  const targets: TargetCheck[] = [
    {
      target: `priority queue: a user's change reconciled within 1 s of the write while ${n} objects sync (p50)`,
      actual: `p50 ${medianProbe.toFixed(0)} ms, worst ${worstProbe.toFixed(0)} ms`,
      met: medianProbe <= 1_000,
    },
    {
      target: `every probe (a user's change) reconciled within 1 s of the write while ${n} objects sync (worst)`,
      actual: `worst ${worstProbe.toFixed(0)} ms; keys waiting ahead of it at the default priority: ${String(worstAhead)}`,
      met: worstProbe <= 1_000,
    },
    {
      target:
        'no starvation: every list key has its first pass within 4 × (N + 1) passes under a continuous stream',
      actual: `${worstRatio.toFixed(2)} × (N + 1) passes`,
      met: worstRatio <= 4 && pq.every((f) => f.firstPassesEndS > 0),
    },
  ];
  return { id: 14, title, markdown: `${markdown}\n\n${targetLines(targets)}`, targets, raw: figures };
}
