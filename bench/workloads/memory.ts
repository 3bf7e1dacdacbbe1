// Workload 4: heap and RSS after caching N ConfigMaps of ~1 KiB through our Informer/Store (and, for
// comparison, client-node's makeInformer cache), per object and relative to the raw JSON the server sent.
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { Child } from '../lib/child.js';
import { progress } from '../lib/progress.js';
import { summarise } from '../lib/stats.js';
import { formatNumber, formatRatio, markdownTable } from '../lib/table.js';
import { placesFor, placeTitle } from '../lib/places.js';
import { forEachConcurrent, type Target } from '../lib/target.js';
import { configMapsPath } from '../lib/website.js';

const SYSTEMS = [
  { label: 'reconcilekit Informer/Store', system: 'reconcilekit' },
  { label: 'client-node 1.4 makeInformer cache', system: 'client-node' },
] as const;

interface MemorySamples {
  heapPerObject: number[];
  rssPerObject: number[];
  syncMs: number[];
  failures: string[];
}

/** A ConfigMap whose JSON, as served (with uid, timestamps and managedFields), is about 1 KiB. */
function configMap(i: number, namespace: string): Record<string, unknown> {
  const data: Record<string, string> = {};
  for (let k = 0; k < 7; k++) data[`key-${k}`] = `${i}-${k}-`.padEnd(100, 'abcdefghij');
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${String(i).padStart(6, '0')}`,
      namespace,
      labels: { app: 'bench', shard: String(i % 16) },
    },
    data,
  };
}

async function rawJsonBytes(target: Target): Promise<{ count: number; bytes: number }> {
  let bytes = 0;
  let count = 0;
  let token: string | undefined;
  do {
    const query = `?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
    const page = await target.rest.request('GET', configMapsPath(target.namespace) + query);
    for (const item of page.items) {
      // Items of a list omit apiVersion/kind; a watch or GET carries them, so count them in.
      bytes += Buffer.byteLength(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', ...item }));
      count += 1;
    }
    token = page.metadata?.continue || undefined;
  } while (token);
  return { count, bytes };
}

async function measureOne(
  target: Target,
  system: string,
  out: MemorySamples,
  expected: number,
): Promise<void> {
  const child = Child.fork('children/memory-child.js', [system, target.kubeconfigPath, target.namespace], {
    execArgv: ['--expose-gc'],
  });
  try {
    const m = await child.next('memory', 300_000);
    if ((m.count as number) !== expected) throw new Error(`cached ${String(m.count)} of ${expected} objects`);
    out.heapPerObject.push((m.heapBytes as number) / expected);
    out.rssPerObject.push((m.rssBytes as number) / expected);
    out.syncMs.push(m.syncMs as number);
  } catch (err) {
    out.failures.push(String(err));
    progress(`  ${system}: run failed: ${String(err)}`);
  } finally {
    await child.stop();
  }
}

/** Runs workload 4 on the embedded server (and on the KUBECONFIG cluster when set). */
export async function runMemory(ctx: BenchContext): Promise<WorkloadResult> {
  const n = ctx.sizes.memoryObjects;
  progress(`workload 4: memory of ${n} cached ConfigMaps, ${ctx.sizes.runs} runs per cache`);
  const parts: string[] = [];
  const targets: TargetCheck[] = [];
  const raw: Record<string, unknown> = {};
  for (const place of placesFor(ctx, { installCrd: false })) {
    const name = place.name;
    const target = await place.make();
    try {
      progress(`workload 4 [${name}]: creating ${n} ConfigMaps`);
      await forEachConcurrent(n, 8, async (i) => {
        await target.rest.request('POST', configMapsPath(target.namespace), configMap(i, target.namespace));
      });
      const json = await rawJsonBytes(target);
      const rawPerObject = json.bytes / json.count;
      progress(
        `workload 4 [${name}]: ${json.count} objects, ${formatNumber(rawPerObject, 0)} bytes of JSON each`,
      );
      const samples = new Map<(typeof SYSTEMS)[number], MemorySamples>(
        SYSTEMS.map((s) => [s, { heapPerObject: [], rssPerObject: [], syncMs: [], failures: [] }]),
      );
      for (let run = 1; run <= ctx.sizes.runs; run++) {
        for (const sut of SYSTEMS) {
          const out = samples.get(sut)!;
          await measureOne(target, sut.system, out, json.count);
          progress(
            `workload 4 [${name}] run ${run}/${ctx.sizes.runs} ${sut.label}: heap ${formatNumber(out.heapPerObject.at(-1), 0)} B/object, ` +
              `RSS ${formatNumber(out.rssPerObject.at(-1), 0)} B/object`,
          );
        }
      }
      const base = summarise(samples.get(SYSTEMS[0])!.heapPerObject).median;
      const rows = [...samples].map(([sut, s]) => {
        const heap = summarise(s.heapPerObject);
        const rss = summarise(s.rssPerObject);
        return {
          system: sut.label,
          cells: [
            heap,
            rss,
            formatRatio(heap.median, rawPerObject, 2),
            formatRatio(rss.median, rawPerObject, 2),
            summarise(s.syncMs),
            formatRatio(heap.median, base, 2),
          ],
        };
      });
      const md = markdownTable(
        [
          { heading: 'heap bytes/object', digits: 0 },
          { heading: 'RSS bytes/object', digits: 0 },
          { heading: 'heap ÷ raw JSON', digits: 2 },
          { heading: 'RSS ÷ raw JSON', digits: 2 },
          { heading: 'ms to sync', digits: 0 },
          { heading: 'heap ÷ reconcilekit', digits: 2 },
        ],
        rows,
      );
      parts.push(
        `**${placeTitle(place)}** (${json.count} ConfigMaps, ` +
          `${formatNumber(rawPerObject, 0)} bytes of JSON each, ${formatNumber(json.bytes / 1048576, 1)} MiB in all)\n\n${md}`,
      );
      const ours = samples.get(SYSTEMS[0])!;
      const heapRatio = summarise(ours.heapPerObject).median / rawPerObject;
      const rssRatio = summarise(ours.rssPerObject).median / rawPerObject;
      targets.push({
        target: `[${name}] reconcilekit cache ≤ 3× the raw JSON`,
        actual: `heap ${formatNumber(heapRatio, 2)}×, RSS ${formatNumber(rssRatio, 2)}×`,
        met: heapRatio <= 3 && rssRatio <= 3 && ours.failures.length === 0,
      });
      raw[name] = {
        rawJsonBytesPerObject: rawPerObject,
        objects: json.count,
        systems: Object.fromEntries([...samples].map(([s, v]) => [s.label, v])),
      };
    } finally {
      await target.close();
      await place.dispose();
    }
  }
  return {
    id: 4,
    title: 'Memory: N cached ConfigMaps of ~1 KiB',
    markdown: `${parts.join('\n\n')}\n\n${targetLines(targets)}`,
    targets,
    raw: { objects: n, ...raw },
  };
}
