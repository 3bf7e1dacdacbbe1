// Summaries of repeated measurements: the bench quotes medians with their spread, never one sample.

/** Median, min and max of a set of runs, plus the raw samples for the results file. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

/** The p-th percentile (0–100) of values by nearest rank; NaN for an empty set. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  const index = Math.min(sorted.length - 1, Math.max(0, rank - 1));
  return sorted[index] ?? Number.NaN;
}

/** Median (mean of the middle two for an even count), min and max. */
export function summarise(samples: readonly number[]): Summary {
  if (samples.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, samples: [] };
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return {
    median,
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    samples: [...samples],
  };
}
