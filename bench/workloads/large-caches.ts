// Workload 13: large caches on a real kube-apiserver + etcd of its own (envtest's binaries).
// A. Bytes an informer holds for N Secrets of 10 KB each, metadataOnly vs whole objects: heap growth after a
//    forced GC, and the JSON bytes of what the store holds.
// B. Initial sync of M ConfigMaps, streamed (watch-list, sendInitialEvents) vs paged LIST (500 a page): time
//    from start to synced, and kube-apiserver's peak RSS above its level before (VmRSS sampled every 20 ms).
// Runs interleave the two variants; medians and min–max are reported with the load average.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { InformerCache, ObjectClient, Watcher, silentLogger } from 'reconcilekit';
import { startKubeApiServer } from 'reconcilekit/testing';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { progress } from '../lib/progress.js';
import { realBackendAssets } from '../lib/real-backend.js';
import { summarise } from '../lib/stats.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SIZES = {
  full: { secrets: 10_000, objects: 50_000, runs: 3 },
  quick: { secrets: 2_000, objects: 10_000, runs: 2 },
  tiny: { secrets: 200, objects: 1_000, runs: 1 },
} as const;

function load(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
}

async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 50));
  }
  return process.memoryUsage().heapUsed;
}

/** Creates `count` objects made by `make`, 32 at a time. */
async function createMany(
  client: ObjectClient,
  count: number,
  make: (i: number) => KubernetesObject,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      await client.create(make(i));
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

/** kube-apiserver's resident set (KiB) from /proc. */
function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? Number.NaN : Number(m[1]);
}

/** kube-apiserver's Go allocation counter (bytes allocated since start), from /metrics. */
async function allocatedBytes(client: ObjectClient): Promise<number> {
  const res = await client.transport.open({ method: 'GET', path: '/metrics' });
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const m = /^go_memstats_alloc_bytes_total (\S+)$/m.exec(Buffer.concat(chunks).toString('utf8'));
  return m === null ? Number.NaN : Number(m[1]);
}

function apiServerPid(url: string): number {
  const port = new URL(url).port;
  // The process itself (comm kube-apiserver), not its supervising shell whose arguments name it too.
  const out = execFileSync('ps', ['-eo', 'pid,comm,args'], { encoding: 'utf8' });
  const line = out
    .split('\n')
    .find((l) => l.trim().split(/\s+/)[1] === 'kube-apiserver' && l.includes(`--secure-port=${port}`));
  if (line === undefined) throw new Error(`no kube-apiserver process with --secure-port=${port}`);
  return Number(line.trim().split(/\s+/)[0]);
}

/** Heap growth and cached JSON bytes of one informer of the bench's Secrets, stopped again before returning. */
async function measureInformer(
  client: ObjectClient,
  variant: 'metadata' | 'full',
): Promise<{ held: number; bytes: number }> {
  const before = await settledHeap();
  const informers = new InformerCache({ client });
  const informer = informers.acquire({
    apiVersion: 'v1',
    kind: 'Secret',
    plural: 'secrets',
    namespace: 'bench-secrets',
    ...(variant === 'metadata' ? { metadataOnly: true } : {}),
  });
  await informer.waitForSync(undefined, 600_000);
  const held = (await settledHeap()) - before;
  let bytes = 0;
  for (const obj of informer.store.list()) bytes += Buffer.byteLength(JSON.stringify(obj));
  await informers.stop();
  return { held, bytes };
}

const range = (xs: number[], digits = 0) => {
  const s = summarise(xs);
  return `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
};

export async function runLargeCaches(ctx: BenchContext): Promise<WorkloadResult> {
  const sizes = SIZES[ctx.mode];
  const assets = realBackendAssets();
  if ('reason' in assets) {
    return {
      id: 13,
      title: 'Large caches: metadata-only watches, streaming initial lists',
      markdown: `Not run: ${assets.reason}.`,
      targets: [],
      raw: { skipped: assets.reason },
    };
  }
  const server = await startKubeApiServer({ assetsDir: assets.dir });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(server.kubeconfig);
  const client = new ObjectClient({ kubeConfig });
  let pid = apiServerPid(server.url);
  try {
    for (const name of ['bench-secrets', 'bench-list']) {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    // A. Secrets of 10 KB.
    progress(`workload 13: creating ${sizes.secrets} Secrets of 10 KB`);
    const payload = Buffer.alloc(10 * 1024, 'x')
      .toString('base64')
      .slice(0, 10 * 1024);
    await createMany(client, sizes.secrets, (i) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: `s-${String(i).padStart(6, '0')}`,
        namespace: 'bench-secrets',
        labels: { app: 'bench' },
      },
      type: 'Opaque',
      data: {
        payload: Buffer.from(payload)
          .toString('base64')
          .slice(0, 10 * 1024),
      },
    }));
    const heap = { metadata: [] as number[], full: [] as number[] };
    const json = { metadata: [] as number[], full: [] as number[] };
    const loadA: string[] = [];
    for (let run = 0; run < sizes.runs; run++) {
      for (const variant of ['metadata', 'full'] as const) {
        // In a function of its own: a suspended async frame would keep the last informer alive for the next
        // run's baseline.
        const { held, bytes } = await measureInformer(client, variant);
        heap[variant].push(held);
        json[variant].push(bytes);
        loadA.push(load());
        progress(
          `workload 13: ${variant} informer of ${String(sizes.secrets)} Secrets holds ${(held / 2 ** 20).toFixed(1)} MiB heap, ${(bytes / 2 ** 20).toFixed(1)} MiB JSON (load ${load()})`,
        );
      }
    }
    // B. 50,000 ConfigMaps, streamed vs paged.
    progress(`workload 13: creating ${sizes.objects} ConfigMaps`);
    await createMany(client, sizes.objects, (i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `cm-${String(i).padStart(6, '0')}`,
        namespace: 'bench-list',
        labels: { app: 'bench' },
      },
      data: { value: `${i}-`.padEnd(512, 'abcdefghij') },
    }));
    const sync = { 'watch-list': [] as number[], list: [] as number[] };
    const peak = { 'watch-list': [] as number[], list: [] as number[] };
    const allocated = { 'watch-list': [] as number[], list: [] as number[] };
    const loadB: string[] = [];
    for (let run = 0; run < sizes.runs; run++) {
      for (const mode of ['watch-list', 'list'] as const) {
        // A fresh kube-apiserver (etcd kept) per run: its RSS then shows what serving the initial list takes,
        // not memory an earlier run left in its heap.
        await server.restartApiServer();
        pid = apiServerPid(server.url);
        for (let ready = false; !ready;) {
          ready = await client
            .list(
              { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'bench-list' },
              { limit: 1 },
            )
            .then(
              () => true,
              () => false,
            );
          if (!ready) await new Promise((r) => setTimeout(r, 200));
        }
        await new Promise((r) => setTimeout(r, 3_000)); // let it settle
        const allocatedBefore = await allocatedBytes(client);
        const baseline = rssKiB(pid);
        let max = baseline;
        const sampler = setInterval(() => {
          max = Math.max(max, rssKiB(pid));
        }, 20);
        const watcher = new Watcher({
          client,
          resource: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'bench-list' },
          logger: silentLogger(),
          watchList: mode === 'watch-list',
        });
        const started = performance.now();
        watcher.start();
        while (!watcher.synced) await new Promise((r) => setTimeout(r, 5));
        const ms = performance.now() - started;
        clearInterval(sampler);
        max = Math.max(max, rssKiB(pid));
        if (watcher.initialList !== mode)
          throw new Error(`expected a ${mode}, the watcher made a ${String(watcher.initialList)}`);
        if (watcher.store.size !== sizes.objects)
          throw new Error(`synced ${String(watcher.store.size)} objects`);
        await watcher.stop();
        sync[mode].push(ms);
        peak[mode].push((max - baseline) / 1024);
        allocated[mode].push(((await allocatedBytes(client)) - allocatedBefore) / 2 ** 20);
        loadB.push(load());
        progress(
          `workload 13: ${mode} sync of ${String(sizes.objects)} ConfigMaps ${ms.toFixed(0)} ms, kube-apiserver peak RSS +${((max - baseline) / 1024).toFixed(1)} MiB of ${(baseline / 1024).toFixed(0)}, allocated ${String(allocated[mode].at(-1)?.toFixed(0))} MiB (load ${load()})`,
        );
      }
    }
    const heapRatio = summarise(heap.metadata).median / summarise(heap.full).median;
    const jsonRatio = summarise(json.metadata).median / summarise(json.full).median;
    const targets: TargetCheck[] = [
      {
        target: `an informer of ${String(sizes.secrets)} Secrets of 10 KB with metadataOnly holds ≤ 10 % of the bytes of a full one`,
        actual: `heap ${(heapRatio * 100).toFixed(1)} %, JSON ${(jsonRatio * 100).toFixed(1)} %`,
        met: heapRatio <= 0.1,
      },
    ];
    const mib = (xs: number[]) => xs.map((x) => x / 2 ** 20);
    const markdown = [
      `Own kube-apiserver + etcd (${assets.dir.split('/').filter(Boolean).pop() ?? ''}), restarted (etcd kept) before each sync of B; medians (min–max) of ${String(sizes.runs)} interleaved runs; load = 1/5/15-min load averages during the runs.`,
      '',
      `**A. ${String(sizes.secrets)} Secrets of 10 KB, one informer** (heap growth after a forced GC; JSON bytes of the cached objects)`,
      '',
      '| informer | heap held (MiB) | cached JSON (MiB) | load |',
      '|---|---:|---:|---|',
      `| metadataOnly: true | ${range(mib(heap.metadata), 1)} | ${range(mib(json.metadata), 1)} | ${loadA.filter((_, i) => i % 2 === 0).join('; ')} |`,
      `| whole objects | ${range(mib(heap.full), 1)} | ${range(mib(json.full), 1)} | ${loadA.filter((_, i) => i % 2 === 1).join('; ')} |`,
      `| ratio | ${(heapRatio * 100).toFixed(1)} % | ${(jsonRatio * 100).toFixed(1)} % | |`,
      '',
      `**B. Initial sync of ${String(sizes.objects)} ConfigMaps (~0.8 KB each)** (start to synced; kube-apiserver VmRSS peak above its level before)`,
      '',
      '| initial list | sync (ms) | kube-apiserver peak RSS growth (MiB) | kube-apiserver allocated (MiB) | load |',
      '|---|---:|---:|---:|---|',
      `| streamed (watch-list) | ${range(sync['watch-list'])} | ${range(peak['watch-list'], 1)} | ${range(allocated['watch-list'])} | ${loadB.filter((_, i) => i % 2 === 0).join('; ')} |`,
      `| paged LIST (500 a page) | ${range(sync.list)} | ${range(peak.list, 1)} | ${range(allocated.list)} | ${loadB.filter((_, i) => i % 2 === 1).join('; ')} |`,
      `| ratio streamed ÷ paged | ${(summarise(sync['watch-list']).median / summarise(sync.list).median).toFixed(2)}× | ${(summarise(peak['watch-list']).median / summarise(peak.list).median).toFixed(2)}× | ${(summarise(allocated['watch-list']).median / summarise(allocated.list).median).toFixed(2)}× | |`,
      '',
      targetLines(targets),
    ].join('\n');
    return {
      id: 13,
      title: 'Large caches: metadata-only watches, streaming initial lists',
      markdown,
      targets,
      raw: { sizes, heap, json, sync, peak, allocated, loadA, loadB },
    };
  } finally {
    client.close();
    await server.close();
  }
}
