// Smoke test of the bench harness: the statistics and tables every workload reports with, and a tiny
// in-process run of workload 1 (engine overhead) through the real Framework.
import { describe, expect, it } from 'vitest';
import { TINY_SIZES } from '../../bench/lib/bench-sizes.js';
import { percentile, summarise } from '../../bench/lib/stats.js';
import { formatRatio, markdownTable } from '../../bench/lib/table.js';
import { runEngineOverhead } from '../../bench/workloads/engine-overhead.js';

describe('bench statistics', () => {
  it('summarises runs as median (mean of the middle two for an even count), min and max', () => {
    expect(summarise([9, 1, 4, 3])).toEqual({ median: 3.5, min: 1, max: 9, samples: [9, 1, 4, 3] });
    expect(summarise([5, 2, 7]).median).toBe(5);
    expect(Number.isNaN(summarise([]).median)).toBe(true);
  });

  it('takes percentiles by nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
  });
});

describe('bench tables', () => {
  it('prints a markdown row per system with median (min–max) and a ratio', () => {
    const md = markdownTable(
      [{ heading: 's', digits: 1 }, { heading: 'ratio' }],
      [
        { system: 'a', cells: [summarise([1, 2, 3]), formatRatio(2, 2)] },
        { system: 'b', cells: [summarise([4, 6, 8]), formatRatio(6, 2)] },
      ],
    );
    expect(md.split('\n')).toEqual([
      '| system | s | ratio |',
      '|---|---:|---:|',
      '| a | 2.0 (1.0–3.0) | 1.00× |',
      '| b | 6.0 (4.0–8.0) | 3.00× |',
    ]);
    expect(formatRatio(1, 0)).toBe('n/a');
  });
});

describe('workload 1 (engine overhead), tiny', () => {
  it('runs the plain loop, processUpdate and the Framework with 1 and 8 workers and checks the target', async () => {
    const result = await runEngineOverhead({
      sizes: { ...TINY_SIZES, engineObjects: 100 },
      mode: 'tiny',
      clusterKubeconfig: undefined,
      profileDir: undefined,
      systems: undefined,
    });
    expect(result.id).toBe(1);
    expect(result.markdown).toContain('| plain loop calling the ops (baseline) |');
    expect(result.markdown).toContain('| Framework.updateFunc, 8 workers |');
    expect(result.targets).toHaveLength(2);
    const runs = (result.raw as { runs: Record<string, { perSecond: number }[]> }).runs;
    for (const passes of Object.values(runs)) {
      expect(passes).toHaveLength(1);
      expect(passes[0]!.perSecond).toBeGreaterThan(0);
    }
  });
});
