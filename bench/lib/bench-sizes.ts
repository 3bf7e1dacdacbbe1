// Workload sizes. FULL is the contract of issue 6; QUICK keeps `make bench QUICK=1` under two minutes;
// TINY is the smoke test's (seconds).

/** Sizes and repetition counts of every workload. */
export interface BenchSizes {
  /** Repetitions per system; the tables quote the median with min and max. */
  runs: number;
  /** Workload 1: objects fed through updateFunc. */
  engineObjects: number;
  /** Workload 2: Website custom resources to converge. */
  endToEndObjects: number;
  /** Workload 3: merge patches sent to one object. */
  burstPatches: number;
  /** Workload 3: the call count counts as settled after this long without a change. */
  burstQuietMs: number;
  /** Workload 4: ~1 KiB ConfigMaps cached. */
  memoryObjects: number;
  /** Workload 5: objects created per create-rate sample. */
  serverCreates: number;
  /** Workload 5: objects in the listed collection. */
  serverListObjects: number;
  /** Workload 5: concurrent watchers. */
  serverWatchers: number;
  /** Workload 5: events whose latency is measured per watcher. */
  serverWatchEvents: number;
  /** Workload 8: objects planned (and reconciled once) per run. */
  planObjects: number;
}

export const FULL_SIZES: BenchSizes = {
  runs: 5,
  engineObjects: 10_000,
  endToEndObjects: 2_000,
  burstPatches: 1_000,
  burstQuietMs: 1_000,
  memoryObjects: 50_000,
  serverCreates: 2_000,
  serverListObjects: 10_000,
  serverWatchers: 10,
  serverWatchEvents: 500,
  planObjects: 2_000,
};

export const QUICK_SIZES: BenchSizes = {
  runs: 3,
  engineObjects: 2_000,
  endToEndObjects: 60,
  burstPatches: 100,
  burstQuietMs: 500,
  memoryObjects: 3_000,
  serverCreates: 300,
  serverListObjects: 1_500,
  serverWatchers: 10,
  serverWatchEvents: 30,
  planObjects: 300,
};

export const TINY_SIZES: BenchSizes = {
  runs: 1,
  engineObjects: 200,
  endToEndObjects: 20,
  burstPatches: 20,
  burstQuietMs: 300,
  memoryObjects: 200,
  serverCreates: 50,
  serverListObjects: 100,
  serverWatchers: 2,
  serverWatchEvents: 10,
  planObjects: 30,
};
