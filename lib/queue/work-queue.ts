import type { Registry } from 'prom-client';
import { WorkQueueMetrics, type QueueProbe } from './metrics.js';
import { ExponentialRateLimiter, type RateLimiter } from './rate-limiter.js';
import { HistogramBuffer } from '../observability/histogram-buffer.js';

/**
 * Options of {@link WorkQueue}.
 * @category Work queue
 */
export interface WorkQueueOptions {
  /** Queue name, the `name` label of the workqueue_* metrics (controller-runtime uses the controller name). */
  name: string;
  /** The `controller` label. Default: `name`. */
  controller?: string;
  /** Per-key retry delays for `addRateLimited`. Default: `new ExponentialRateLimiter()` (5 ms ×2, cap 1000 s). */
  rateLimiter?: RateLimiter;
  /** Registry for the workqueue_* metrics. Default: none (no metrics). Never the global registry. */
  registry?: Registry;
  /** Clock in ms, for metrics. Default: `Date.now` (fake timers replace it in tests). */
  now?: () => number;
  /**
   * Minimum time between the starts of two runs of one key. Default 0 (client-go: re-run at once). An idle
   * key still runs at once; a key added while or right after it runs waits until this long after its
   * previous run started, so a burst of changes to one key costs at most one run per interval.
   */
  minIntervalMs?: number;
}

interface Waiter<K> {
  resolve(key: K | undefined): void;
}

/**
 * A work queue with client-go's guarantees:
 * - **dedup while waiting**: a key added N times before a worker takes it is handed out once;
 * - **per-key exclusivity**: a key handed out by `get` is not handed out again until `done(key)`;
 * - **no lost change**: a key added while it is being processed is queued again once on `done`;
 * - **delayed adds**: `addAfter` keeps the earliest pending time per key; `addRateLimited` uses the
 *   rate limiter's per-key backoff, which `forget` resets.
 * - **minimum interval** (`minIntervalMs`): a key added within the interval after its previous run
 *   started waits (still deduplicated) until the interval is over; delayed adds keep their own delays.
 *
 * Workers loop `key = await get(); try { … } finally { done(key) }` until `get` returns undefined.
 * @category Work queue
 */
export class WorkQueue<K extends string = string> {
  private readonly queue: K[] = [];
  private head = 0;
  private readonly dirty = new Set<K>();
  private readonly processing = new Map<K, number>();
  private readonly addedAt = new Map<K, number>();
  private readonly delayed = new Map<K, { at: number; timer: NodeJS.Timeout }>();
  private readonly waiters: Waiter<K>[] = [];
  private readonly rateLimiter: RateLimiter;
  private readonly metrics: WorkQueueMetrics | undefined;
  private readonly probe: QueueProbe;
  private readonly clock: () => number;
  private shutdown = false;
  private pendingAdds = 0;
  private pendingDepth = 0;
  private durations:
    | { queue: HistogramBuffer<'name' | 'controller'>; work: HistogramBuffer<'name' | 'controller'> }
    | undefined;
  private draining = false;
  private drained: (() => void) | undefined;
  private readonly minIntervalMs: number;
  /** Start times of recent runs (oldest done first); entries older than the interval are pruned. */
  private readonly lastStarts = new Map<K, number>();
  /** Dirty keys waiting for their interval to pass before they are queued. */
  private readonly cooling = new Map<K, NodeJS.Timeout>();

  constructor(options: WorkQueueOptions) {
    this.rateLimiter = options.rateLimiter ?? new ExponentialRateLimiter();
    this.clock = options.now ?? (() => Date.now());
    const minInterval = options.minIntervalMs ?? 0;
    this.minIntervalMs = Number.isFinite(minInterval) && minInterval > 0 ? minInterval : 0;
    const processing = this.processing;
    const clock = this.clock;
    this.probe = {
      labels: { name: options.name, controller: options.controller ?? options.name },
      processingStarts: () => processing.values(),
      now: clock,
      takeAdds: () => {
        const n = this.pendingAdds;
        this.pendingAdds = 0;
        return n;
      },
      takeDepthDelta: () => {
        const delta = this.pendingDepth;
        this.pendingDepth = 0;
        return delta;
      },
    };
    if (options.registry !== undefined) {
      const metrics = WorkQueueMetrics.for(options.registry);
      this.metrics = metrics;
      metrics.attach(this.probe);
      const labels = this.probe.labels;
      const queueDuration = new HistogramBuffer(metrics.queueDuration, labels, metrics.durationBuckets);
      const workDuration = new HistogramBuffer(metrics.workDuration, labels, metrics.durationBuckets);
      this.durations = { queue: queueDuration, work: workDuration };
      this.probe.flushDurations = () => {
        queueDuration.flush();
        workDuration.flush();
      };
    }
  }

  /** True once `shutDown` or `shutDownWithDrain` was called; adds are ignored from then on. */
  get shuttingDown(): boolean {
    return this.shutdown;
  }

  /** Marks `key` as needing processing (no-op if it already waits, or during shutdown). */
  add(key: K): void {
    if (this.shutdown) return;
    if (this.dirty.has(key)) return;
    this.dirty.add(key);
    this.addedAt.set(key, this.clock());
    this.pendingAdds += 1;
    if (this.processing.has(key)) return;
    if (this.minIntervalMs > 0) {
      const last = this.lastStarts.get(key);
      if (last !== undefined) {
        this.pushAfterInterval(key, last);
        return;
      }
    }
    this.push(key);
  }

  /** A delayed add: its delay was its own, so it does not wait for the interval (nor lengthen it). */
  private addDue(key: K): void {
    const timer = this.cooling.get(key);
    if (timer === undefined) {
      this.add(key);
      if (this.cooling.has(key)) this.addDue(key);
      return;
    }
    clearTimeout(timer);
    this.cooling.delete(key);
    this.push(key);
  }

  /** Queues `key` once `minIntervalMs` has passed since `lastStart` (at once if it has). */
  private pushAfterInterval(key: K, lastStart: number): void {
    const wait = lastStart + this.minIntervalMs - this.clock();
    if (!(wait > 0)) {
      this.push(key);
      return;
    }
    const timer = setTimeout(() => {
      this.cooling.delete(key);
      this.push(key);
    }, wait);
    timer.unref();
    this.cooling.set(key, timer);
  }

  private push(key: K): void {
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      this.take(key);
      waiter.resolve(key);
      return;
    }
    this.queue.push(key);
    this.pendingDepth += 1;
  }

  private take(key: K): K {
    const now = this.clock();
    this.dirty.delete(key);
    this.processing.set(key, now);
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (added !== undefined) this.durations?.queue.observe((now - added) / 1000);
    return key;
  }

  /** Adds `key` after `delayMs` (immediately if ≤ 0); an earlier pending delayed add of `key` wins. */
  addAfter(key: K, delayMs: number): void {
    if (this.shutdown) return;
    if (!(delayMs > 0)) {
      this.add(key);
      return;
    }
    const at = this.clock() + delayMs;
    const pending = this.delayed.get(key);
    if (pending !== undefined) {
      if (pending.at <= at) return;
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.addDue(key);
    }, delayMs);
    this.delayed.set(key, { at, timer });
  }

  /** Adds `key` after the rate limiter's next backoff for it, and counts a retry. */
  addRateLimited(key: K): void {
    if (this.shutdown) return;
    this.metrics?.retries.inc(this.probe.labels);
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Age (ms) of the longest-waiting key in the queue, 0 when empty (the live view). */
  oldestWaitingMs(): number {
    const first = this.addedAt.values().next();
    if (first.done === true) return 0;
    let oldest = first.value;
    for (const at of this.addedAt.values()) if (at < oldest) oldest = at;
    return Math.max(0, this.clock() - oldest);
  }

  /** When (queue clock, ms) a pending delayed add of `key` fires, or undefined when none is pending. */
  dueAt(key: K): number | undefined {
    return this.delayed.get(key)?.at;
  }

  /** Resets `key`'s backoff (call after a success). Does not cancel a pending delayed add. */
  forget(key: K): void {
    this.rateLimiter.forget(key);
  }

  /** Failures counted for `key` since the last `forget`. */
  numRequeues(key: K): number {
    return this.rateLimiter.numRequeues(key);
  }

  /**
   * The next queued key at once, exactly as `get` would hand it out, or undefined when none can be
   * handed out now (nothing queued, or shut down without draining). Never waits: a worker with a
   * backlog takes keys without a promise per key.
   */
  tryGet(): K | undefined {
    if (this.head >= this.queue.length || (this.shutdown && !this.draining)) return undefined;
    const key = this.queue[this.head] as K;
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.pendingDepth -= 1;
    return this.take(key);
  }

  /**
   * The next key to process; waits while the queue is empty. Resolves undefined when the queue shuts down
   * (after `shutDownWithDrain`: once nothing queued is left) or when `signal` aborts.
   */
  get(signal?: AbortSignal): Promise<K | undefined> {
    const ready = this.tryGet();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.shutdown || signal?.aborted === true) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter<K> = {
        resolve: (key) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(key);
        },
      };
      const onAbort = (): void => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Ends processing of `key`; if it was added meanwhile it is queued again (once). */
  done(key: K): void {
    const started = this.processing.get(key);
    if (started === undefined) return;
    this.processing.delete(key);
    this.durations?.work.observe((this.clock() - started) / 1000);
    if (this.minIntervalMs > 0) this.rememberStart(key, started);
    if (this.dirty.has(key)) {
      // During shutdown a changed key is not run again: the next leader or start relists anyway.
      if (this.shutdown) this.dirty.delete(key);
      else if (this.minIntervalMs > 0) this.pushAfterInterval(key, started);
      else this.push(key);
    }
    this.checkDrained();
  }

  private rememberStart(key: K, started: number): void {
    const starts = this.lastStarts;
    starts.delete(key);
    starts.set(key, started);
    const horizon = this.clock() - this.minIntervalMs;
    // Oldest done first; a long run can keep a newer start behind an older one, which only delays pruning.
    for (const [k, start] of starts) {
      if (start > horizon) break;
      starts.delete(k);
    }
  }

  /** Keys waiting to be handed out (not counting delayed, cooling or in-process keys). */
  len(): number {
    return this.queue.length - this.head;
  }

  /** Keys being processed right now. */
  processingCount(): number {
    return this.processing.size;
  }

  /** Stops at once: adds are ignored, pending delays dropped, and every `get` returns undefined. */
  shutDown(): void {
    if (!this.shutdown) {
      this.shutdown = true;
      this.stopIntake();
    }
    this.draining = false;
    this.releaseWaiters();
    this.checkDrained();
  }

  /**
   * Stops intake (adds ignored, pending delays dropped) but keeps handing out already-queued keys; resolves
   * once nothing is queued or processing, or when `signal` aborts (then it shuts down at once).
   */
  shutDownWithDrain(signal?: AbortSignal): Promise<void> {
    if (!this.shutdown) {
      this.shutdown = true;
      this.draining = true;
      this.stopIntake();
    }
    const done = new Promise<void>((resolve) => {
      const previous = this.drained;
      this.drained = () => {
        previous?.();
        resolve();
      };
    });
    const giveUp = (): void => {
      this.shutDown();
      this.resolveDrained();
    };
    if (signal?.aborted === true) giveUp();
    else signal?.addEventListener('abort', giveUp, { once: true });
    this.checkDrained();
    return done;
  }

  private stopIntake(): void {
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    for (const [key, timer] of this.cooling) {
      clearTimeout(timer);
      this.dirty.delete(key);
    }
    this.cooling.clear();
    this.lastStarts.clear();
  }

  private releaseWaiters(): void {
    for (const waiter of this.waiters.splice(0)) waiter.resolve(undefined);
  }

  private checkDrained(): void {
    if (!this.shutdown) return;
    const nothingQueued = this.len() === 0 || !this.draining;
    if (nothingQueued) this.releaseWaiters();
    if (this.processing.size === 0) this.metrics?.detach(this.probe);
    if (nothingQueued && this.processing.size === 0) this.resolveDrained();
  }

  private resolveDrained(): void {
    const drained = this.drained;
    this.drained = undefined;
    drained?.();
  }
}
