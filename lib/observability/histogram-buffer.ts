import type { Histogram } from 'prom-client';

/** One series of a prom-client histogram as prom-client 15 keeps it (per-bucket, not cumulative, counts). */
interface SeriesEntry {
  labels: Record<string, string | number>;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

function sameLabels(a: Record<string, string | number>, b: Record<string, string | number>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => a[k] === b[k]);
}

/**
 * Observations of one histogram series, counted in local buckets and added to prom-client's series
 * when the metric is read (`flush`, wired with `onCollect`). prom-client's `observe` validates and hashes
 * the labels on every call, which on the reconcile path cost more than the reconcile of a no-op resource;
 * here an observation is a bucket search and three additions.
 *
 * prom-client has no public "add n observations" call, so `flush` adds to the series entry prom-client
 * keeps (`hashMap`, found by its labels, never by prom-client's hash format). When that shape is not
 * there (another prom-client major), the buffer observes directly and counts nothing itself.
 */
export class HistogramBuffer<L extends string> {
  private readonly histogram: Histogram<L>;
  private readonly labels: Record<L, string>;
  private readonly bounds: readonly number[];
  private readonly counts: number[];
  private sum = 0;
  private count = 0;
  private readonly direct: boolean;

  /** `bounds`: the histogram's buckets (ascending); the series `labels` must already exist (`zero`). */
  constructor(histogram: Histogram<L>, labels: Record<L, string>, bounds: readonly number[]) {
    this.histogram = histogram;
    this.labels = labels;
    this.bounds = bounds;
    this.counts = new Array<number>(bounds.length + 1).fill(0);
    this.direct = this.entry() === undefined;
  }

  /** Records one observation. */
  observe(value: number): void {
    if (this.direct) {
      this.histogram.observe(this.labels, value);
      return;
    }
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] ?? 0) + 1;
    this.sum += value;
    this.count += 1;
  }

  /** Adds what was observed since the last flush to prom-client's series. */
  flush(): void {
    if (this.count === 0) return;
    let entry = this.entry();
    if (entry === undefined) {
      // The registry was reset since: start the series again, as prom-client's observe would (what was
      // observed but not read yet lands in the new series).
      this.histogram.zero(this.labels);
      entry = this.entry();
    }
    const { counts, bounds } = this;
    if (entry !== undefined) {
      entry.sum += this.sum;
      entry.count += this.count;
      for (let i = 0; i < bounds.length; i++) {
        const n = counts[i] ?? 0;
        const key = String(bounds[i]);
        if (n > 0 && key in entry.bucketValues) entry.bucketValues[key] = (entry.bucketValues[key] ?? 0) + n;
      }
    }
    counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }

  private entry(): SeriesEntry | undefined {
    const map = (this.histogram as unknown as { hashMap?: Record<string, SeriesEntry> }).hashMap;
    if (typeof map !== 'object') return undefined;
    for (const entry of Object.values(map)) {
      if (
        typeof entry === 'object' &&
        typeof entry.sum === 'number' &&
        typeof entry.count === 'number' &&
        typeof entry.bucketValues === 'object' &&
        sameLabels(entry.labels, this.labels)
      ) {
        return entry;
      }
    }
    return undefined;
  }
}
