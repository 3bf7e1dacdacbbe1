// Workload 15: the cost of a lookup by field index against the cache size. A Store holds N ConfigMap-like
// objects, 3 of which reference the Secret "db" (index "spec.secretName"); the time of one
// `byIndex('spec.secretName', 'db')` is measured at N = 1,000, 10,000 and 100,000, next to a scan of the same
// store (`list().filter(...)`, what a mapper did without an index).
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import { Store } from 'reconcilekit';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { percentile } from '../lib/stats.js';

interface Row {
  objects: number;
  indexUs: number;
  scanUs: number;
  load: string;
}

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string };
  spec: { secretName: string };
};

function timeUs(times: number, fn: () => unknown): number {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    fn();
    samples.push((performance.now() - t) * 1000);
  }
  return percentile(samples, 50);
}

/** Workload 15 (field index lookup vs cache size). */
export async function runFieldIndex(ctx: BenchContext): Promise<WorkloadResult> {
  const sizes = ctx.mode === 'tiny' ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  const rows: Row[] = [];
  for (const n of sizes) {
    const store = new Store<Obj>();
    store.addIndex('spec.secretName', (o) => o.spec.secretName);
    for (let i = 0; i < n; i++) {
      const secretName = i % Math.floor(n / 3) === 7 ? 'db' : `other-${i % 500}`;
      store.set({
        apiVersion: 'v1',
        kind: 'Thing',
        metadata: { name: `t-${i}`, namespace: 'default' },
        spec: { secretName },
      });
    }
    const found = store.byIndex('spec.secretName', 'db').length;
    if (found !== 3) throw new Error(`expected 3 objects referencing db at ${n}, found ${found}`);
    const indexUs = timeUs(2_000, () => store.byIndex('spec.secretName', 'db'));
    const scanUs = timeUs(n >= 100_000 ? 20 : 200, () =>
      store.list().filter((o) => o.spec.secretName === 'db'),
    );
    rows.push({
      objects: n,
      indexUs,
      scanUs,
      load: os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
    });
    await new Promise((r) => setImmediate(r));
  }
  const markdown = [
    '| objects in the cache | byIndex p50 (µs) | scan p50 (µs) | scan ÷ index | load (1/5/15 min) |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.objects} | ${r.indexUs.toFixed(2)} | ${r.scanUs.toFixed(0)} | ${(r.scanUs / r.indexUs).toFixed(0)} | ${r.load} |`,
    ),
  ].join('\n');
  const first = rows[0];
  const last = rows[rows.length - 1];
  const growth = first === undefined || last === undefined ? Number.NaN : last.indexUs / first.indexUs;
  const targets: TargetCheck[] = [
    {
      target: 'lookup by field index costs the same whatever the cache size (3 matches)',
      actual: `${last?.objects ?? 0} vs ${first?.objects ?? 0} objects: ×${growth.toFixed(2)} (a scan: ×${((last?.scanUs ?? 0) / (first?.scanUs ?? 1)).toFixed(0)})`,
      met: growth < 3,
    },
  ];
  return {
    id: 15,
    title: 'Field index: lookup cost against cache size',
    markdown: `${markdown}\n\n${targetLines(targets)}`,
    targets,
    raw: rows,
  };
}
