// Workload 10: the sharding ring, simulated (no cluster). M members (100 in full), K keys (1,000,000 in
// full) shaped like namespace/name. Per run: build the ring, assign every key, then one member joins and
// one leaves; reported: keys moved per change as a fraction of K next to 1/N, the largest and smallest
// member's load against the mean, and the cost of one assignment (the hash and the ring lookup of
// `HashRing.owner`, as the sharder calls it per object). Targets: moved ≈ 1/N (within ±20 %), every
// member within 10 % of the mean.
import { performance } from 'node:perf_hooks';
import { HashRing } from 'reconcilekit';
import {
  targetLines,
  type BenchContext,
  type TargetCheck,
  type WorkloadResult,
} from '../lib/bench-context.js';
import { progress } from '../lib/progress.js';
import { summarise } from '../lib/stats.js';
import { formatNumber, markdownTable } from '../lib/table.js';

const SIZES = {
  full: { members: 100, keys: 1_000_000 },
  quick: { members: 100, keys: 200_000 },
  tiny: { members: 20, keys: 20_000 },
} as const;

interface RingRun {
  buildMs: number;
  nsPerKey: number;
  movedJoin: number;
  movedLeave: number;
  maxOverMean: number;
  minUnderMean: number;
}

function simulate(members: number, keyCount: number): RingRun {
  const names = Array.from({ length: members }, (_, i) => `operator-7f9c4d-${String(i).padStart(3, '0')}`);
  const keys = Array.from({ length: keyCount }, (_, i) => `team-${i % 211}/website-${i}`);
  let t = performance.now();
  const ring = new HashRing(names);
  const buildMs = performance.now() - t;
  const owners = new Array<string>(keyCount);
  t = performance.now();
  for (let i = 0; i < keyCount; i++) owners[i] = ring.owner(keys[i] as string) as string;
  const nsPerKey = ((performance.now() - t) / keyCount) * 1e6;
  const load = new Map<string, number>();
  for (const o of owners) load.set(o, (load.get(o) ?? 0) + 1);
  const mean = keyCount / members;
  const counts = [...load.values()];
  const joined = new HashRing([...names, 'operator-7f9c4d-new']);
  const left = new HashRing(names.slice(1));
  let movedJoin = 0;
  let movedLeave = 0;
  for (let i = 0; i < keyCount; i++) {
    const k = keys[i] as string;
    if (joined.owner(k) !== owners[i]) movedJoin++;
    if (left.owner(k) !== owners[i]) movedLeave++;
  }
  return {
    buildMs,
    nsPerKey,
    movedJoin: movedJoin / keyCount,
    movedLeave: movedLeave / keyCount,
    maxOverMean: Math.max(...counts) / mean - 1,
    minUnderMean: 1 - Math.min(...counts) / mean,
  };
}

export async function runShardingRing(ctx: BenchContext): Promise<WorkloadResult> {
  const { members, keys } = SIZES[ctx.mode];
  const runs: RingRun[] = [];
  for (let r = 0; r < ctx.sizes.runs; r++) {
    progress(`workload 10: ring of ${members} members, ${keys} keys, run ${r + 1}/${ctx.sizes.runs}`);
    runs.push(simulate(members, keys));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const pick = (f: (r: RingRun) => number) => summarise(runs.map(f));
  const moved = pick((r) => Math.max(r.movedJoin, r.movedLeave));
  const spread = pick((r) => Math.max(r.maxOverMean, r.minUnderMean));
  const ideal = 1 / members;
  const targets: TargetCheck[] = [
    {
      target: `keys moved per membership change ≈ 1/N (${formatNumber(ideal * 100, 2)} %, ±20 %)`,
      actual: `${formatNumber(moved.max * 100, 2)} % at most`,
      met: moved.max <= ideal * 1.2 && pick((r) => Math.min(r.movedJoin, r.movedLeave)).min >= ideal * 0.8,
    },
    {
      target: 'every member within 10 % of the mean load',
      actual: `${formatNumber(spread.max * 100, 1)} % at most`,
      met: spread.max <= 0.1,
    },
  ];
  const table = markdownTable(
    [
      { heading: 'members', digits: 0 },
      { heading: 'keys', digits: 0 },
      { heading: 'moved on join (%)', digits: 2 },
      { heading: 'moved on leave (%)', digits: 2 },
      { heading: '1/N (%)', digits: 2 },
      { heading: 'largest load over mean (%)', digits: 1 },
      { heading: 'smallest load under mean (%)', digits: 1 },
      { heading: 'assignment (ns/key)', digits: 0 },
      { heading: 'ring build (ms)', digits: 1 },
    ],
    [
      {
        system: 'reconcilekit HashRing (2,000 virtual nodes)',
        cells: [
          members,
          keys,
          pick((r) => r.movedJoin * 100),
          pick((r) => r.movedLeave * 100),
          ideal * 100,
          pick((r) => r.maxOverMean * 100),
          pick((r) => r.minUnderMean * 100),
          pick((r) => r.nsPerKey),
          pick((r) => r.buildMs),
        ],
      },
    ],
  );
  return {
    id: 10,
    title: 'sharding ring simulation (no cluster)',
    markdown: `${table}\n\n${targetLines(targets)}\n`,
    targets,
    raw: { members, keys, runs },
  };
}
