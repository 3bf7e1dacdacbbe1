import type { Registry } from 'prom-client';
import { WorkQueueMetrics, type QueueProbe } from './metrics.js';
import { ExponentialRateLimiter, type RateLimiter } from './rate-limiter.js';
import { HistogramBuffer } from '../observability/histogram-buffer.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import {
  DEFAULT_AGING_EVERY,
  DEFAULT_LOW_PRIORITY_AFTER_MS,
  DEFAULT_PRIORITY,
  LOW_PRIORITY,
  WORK_QUEUE_ORDERS,
  type WorkQueueOrder,
} from './priority.js';

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
  /**
   * Which waiting key a worker gets next. `'priority'` (default): the highest priority first, FIFO within
   * a priority, and every `agingEvery`-th hand-out the key that has waited longest whatever its priority
   * (aging: no key waits unboundedly). `'fifo'`: the order keys entered the queue, priorities ignored
   * (client-go's queue). With every key at one priority the two orders are the same.
   */
  order?: WorkQueueOrder;
  /**
   * Aging of the priority order: every this-many hand-outs one goes to the longest-waiting key. A key that
   * entered the queue behind `k` others is handed out within `(k + 1) × agingEvery` hand-outs, however
   * many higher-priority keys arrive meanwhile. Default {@link DEFAULT_AGING_EVERY} (4); at least 2.
   */
  agingEvery?: number;
  /**
   * Delayed adds (`addAfter`, `addRateLimited`) without a priority of their own get {@link LOW_PRIORITY}
   * when their delay is at least this long (a retry after a long backoff, a periodic requeue), else
   * {@link DEFAULT_PRIORITY}. Default {@link DEFAULT_LOW_PRIORITY_AFTER_MS} (1 s).
   */
  lowPriorityAfterMs?: number;
}

/** A dirty key: waiting to be queued (processing, cooling) or queued. */
interface Entry<K> {
  readonly key: K;
  /** The highest priority it was added with since it was last handed out. */
  priority: number;
  /** When it was first added since it was last handed out (queue clock). */
  readonly addedAt: number;
  /** Queued: in `fifo` and in its priority's level; handed out entries stay there until skipped. */
  queued: boolean;
}

/** The queued entries of one priority, in the order they got it. */
interface Level<K> {
  readonly items: Entry<K>[];
  head: number;
  /** Entries queued at this priority (the rest of `items` was handed out or raised). */
  live: number;
}

interface Waiter<K> {
  resolve(key: K | undefined): void;
}

/**
 * A work queue with client-go's guarantees:
 * - **dedup while waiting**: a key added N times before a worker takes it is handed out once, at the
 *   highest priority it was added with;
 * - **per-key exclusivity**: a key handed out by `get` is not handed out again until `done(key)`;
 * - **no lost change**: a key added while it is being processed is queued again once on `done`;
 * - **delayed adds**: `addAfter` keeps the earliest pending time per key; `addRateLimited` uses the
 *   rate limiter's per-key backoff, which `forget` resets.
 * - **minimum interval** (`minIntervalMs`): a key added within the interval after its previous run
 *   started waits (still deduplicated) until the interval is over; delayed adds keep their own delays.
 * - **priorities with aging** (`order: 'priority'`, the default): higher priority first, FIFO within one;
 *   every `agingEvery`-th hand-out takes the key that entered the queue first, so a key behind `k` others
 *   is handed out within `(k + 1) × agingEvery` hand-outs whatever arrives after it.
 *
 * Workers loop `key = await get(); try { … } finally { done(key) }` until `get` returns undefined.
 * @category Work queue
 */
export class WorkQueue<K extends string = string> {
  /** Every queued entry in the order it entered the queue (handed-out entries are skipped lazily). */
  private readonly fifo: Entry<K>[] = [];
  private fifoHead = 0;
  /** Queued entries per priority; `priorities` holds their keys, highest first. */
  private readonly levels = new Map<number, Level<K>>();
  private priorities: number[] = [];
  private queuedCount = 0;
  private readonly dirty = new Map<K, Entry<K>>();
  private readonly processing = new Map<K, number>();
  private readonly delayed = new Map<K, { at: number; timer: NodeJS.Timeout; priority: number }>();
  private readonly waiters: Waiter<K>[] = [];
  private readonly rateLimiter: RateLimiter;
  private readonly metrics: WorkQueueMetrics | undefined;
  private readonly probe: QueueProbe;
  private readonly clock: () => number;
  private shutdown = false;
  private pendingAdds = 0;
  /** Depth changes per priority since the last scrape. */
  private readonly pendingDepth = new Map<number, number>();
  private durations:
    | { queue: HistogramBuffer<'name' | 'controller'>; work: HistogramBuffer<'name' | 'controller'> }
    | undefined;
  private draining = false;
  private drained: (() => void) | undefined;
  private readonly minIntervalMs: number;
  private readonly byPriority: boolean;
  private readonly agingEvery: number;
  private readonly lowPriorityAfterMs: number;
  /** Hand-outs so far (every `agingEvery`-th takes the longest-queued key). */
  private turns = 0;
  /** Start times of recent runs (oldest done first); entries older than the interval are pruned. */
  private readonly lastStarts = new Map<K, number>();
  /** Dirty keys waiting for their interval to pass before they are queued. */
  private readonly cooling = new Map<K, NodeJS.Timeout>();

  constructor(options: WorkQueueOptions) {
    this.rateLimiter = options.rateLimiter ?? new ExponentialRateLimiter();
    this.clock = options.now ?? (() => Date.now());
    const minInterval = options.minIntervalMs ?? 0;
    this.minIntervalMs = Number.isFinite(minInterval) && minInterval > 0 ? minInterval : 0;
    const order = options.order ?? 'priority';
    if (!WORK_QUEUE_ORDERS.includes(order)) {
      throw new InvalidConfigError(
        `WorkQueue order must be 'priority' or 'fifo'; got ${JSON.stringify(order)}`,
      );
    }
    this.byPriority = order === 'priority';
    const aging = options.agingEvery ?? DEFAULT_AGING_EVERY;
    if (!Number.isInteger(aging) || aging < 2) {
      throw new InvalidConfigError(
        `WorkQueue agingEvery must be an integer ≥ 2 (one hand-out in that many goes to the longest-waiting key); got ${String(aging)}`,
      );
    }
    this.agingEvery = aging;
    const low = options.lowPriorityAfterMs ?? DEFAULT_LOW_PRIORITY_AFTER_MS;
    if (!(low >= 0)) {
      throw new InvalidConfigError(`WorkQueue lowPriorityAfterMs must be a number ≥ 0; got ${String(low)}`);
    }
    this.lowPriorityAfterMs = low;
    const processing = this.processing;
    const clock = this.clock;
    this.probe = {
      labels: { name: options.name, controller: options.controller ?? options.name },
      priorityLabels: this.byPriority,
      processingStarts: () => processing.values(),
      now: clock,
      takeAdds: () => {
        const n = this.pendingAdds;
        this.pendingAdds = 0;
        return n;
      },
      takeDepthDeltas: () => {
        const deltas = [...this.pendingDepth];
        this.pendingDepth.clear();
        return deltas;
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

  /** The order keys are handed out in (`WorkQueueOptions.order`). */
  get order(): WorkQueueOrder {
    return this.byPriority ? 'priority' : 'fifo';
  }

  /**
   * Marks `key` as needing processing at `priority` (default {@link DEFAULT_PRIORITY}; higher runs first).
   * A key already waiting is not queued twice: it keeps its place and takes the higher of the two
   * priorities (raised, it joins the end of its new priority). No-op during shutdown.
   */
  add(key: K, priority: number = DEFAULT_PRIORITY): void {
    if (this.shutdown) return;
    const p = checkPriority(priority);
    const entry = this.dirty.get(key);
    if (entry !== undefined) {
      if (p > entry.priority) this.raise(entry, p);
      return;
    }
    const fresh: Entry<K> = { key, priority: p, addedAt: this.clock(), queued: false };
    this.dirty.set(key, fresh);
    this.pendingAdds += 1;
    if (this.processing.has(key)) return;
    if (this.minIntervalMs > 0) {
      const last = this.lastStarts.get(key);
      if (last !== undefined) {
        this.pushAfterInterval(fresh, last);
        return;
      }
    }
    this.push(fresh);
  }

  /** The priority `key` waits with, or undefined when it is not waiting (the live view). */
  priorityOf(key: K): number | undefined {
    return this.dirty.get(key)?.priority;
  }

  /** Queued keys per priority, highest first (the live view). */
  depthByPriority(): { priority: number; depth: number }[] {
    return this.priorities.map((priority) => ({ priority, depth: this.levels.get(priority)?.live ?? 0 }));
  }

  private raise(entry: Entry<K>, priority: number): void {
    if (!entry.queued) {
      entry.priority = priority;
      return;
    }
    this.leaveLevel(entry.priority);
    entry.priority = priority;
    this.joinLevel(entry);
  }

  /** A delayed add: its delay was its own, so it does not wait for the interval (nor lengthen it). */
  private addDue(key: K, priority: number): void {
    const timer = this.cooling.get(key);
    if (timer === undefined) {
      this.add(key, priority);
      if (this.cooling.has(key)) this.addDue(key, priority);
      return;
    }
    clearTimeout(timer);
    this.cooling.delete(key);
    const entry = this.dirty.get(key);
    if (entry === undefined) return;
    if (priority > entry.priority) entry.priority = priority;
    this.push(entry);
  }

  /** Queues `entry` once `minIntervalMs` has passed since `lastStart` (at once if it has). */
  private pushAfterInterval(entry: Entry<K>, lastStart: number): void {
    const wait = lastStart + this.minIntervalMs - this.clock();
    if (!(wait > 0)) {
      this.push(entry);
      return;
    }
    const timer = setTimeout(() => {
      this.cooling.delete(entry.key);
      this.push(entry);
    }, wait);
    timer.unref();
    this.cooling.set(entry.key, timer);
  }

  private push(entry: Entry<K>): void {
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      this.turns += 1;
      this.take(entry);
      waiter.resolve(entry.key);
      return;
    }
    entry.queued = true;
    this.queuedCount += 1;
    this.fifo.push(entry);
    this.joinLevel(entry);
  }

  private joinLevel(entry: Entry<K>): void {
    const p = entry.priority;
    let level = this.levels.get(p);
    if (level === undefined) {
      level = { items: [], head: 0, live: 0 };
      this.levels.set(p, level);
      this.priorities = [...this.levels.keys()].sort((a, b) => b - a);
    }
    level.items.push(entry);
    level.live += 1;
    this.pendingDepth.set(p, (this.pendingDepth.get(p) ?? 0) + 1);
  }

  private leaveLevel(priority: number): void {
    this.pendingDepth.set(priority, (this.pendingDepth.get(priority) ?? 0) - 1);
    const level = this.levels.get(priority);
    if (level === undefined) return;
    level.live -= 1;
    if (level.live > 0) return;
    this.levels.delete(priority);
    this.priorities = this.priorities.filter((p) => p !== priority);
  }

  private take(entry: Entry<K>): K {
    const now = this.clock();
    const key = entry.key;
    this.dirty.delete(key);
    this.processing.set(key, now);
    this.durations?.queue.observe((now - entry.addedAt) / 1000);
    return key;
  }

  /**
   * Adds `key` after `delayMs` (immediately if ≤ 0); an earlier pending delayed add of `key` wins. Without
   * `priority`: {@link LOW_PRIORITY} for a delay of at least `lowPriorityAfterMs`, else the default.
   */
  addAfter(key: K, delayMs: number, priority?: number): void {
    if (this.shutdown) return;
    const p =
      priority === undefined
        ? delayMs >= this.lowPriorityAfterMs && this.lowPriorityAfterMs > 0
          ? LOW_PRIORITY
          : DEFAULT_PRIORITY
        : checkPriority(priority);
    if (!(delayMs > 0)) {
      this.add(key, p);
      return;
    }
    const at = this.clock() + delayMs;
    const pending = this.delayed.get(key);
    if (pending !== undefined) {
      if (pending.at <= at) {
        if (p > pending.priority) pending.priority = p;
        return;
      }
      clearTimeout(pending.timer);
    }
    const due = {
      at,
      priority: p,
      timer: setTimeout(() => {
        this.delayed.delete(key);
        this.addDue(key, due.priority);
      }, delayMs),
    };
    this.delayed.set(key, due);
  }

  /** Adds `key` after the rate limiter's next backoff for it, and counts a retry (priority as `addAfter`). */
  addRateLimited(key: K, priority?: number): void {
    if (this.shutdown) return;
    this.metrics?.retries.inc(this.probe.labels);
    this.addAfter(key, this.rateLimiter.when(key), priority);
  }

  /** Age (ms) of the longest-waiting key (queued, cooling, or added while it runs), 0 when none. */
  oldestWaitingMs(): number {
    const first = this.dirty.values().next();
    if (first.done === true) return 0;
    let oldest = first.value.addedAt;
    for (const entry of this.dirty.values()) if (entry.addedAt < oldest) oldest = entry.addedAt;
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
    if (this.queuedCount === 0 || (this.shutdown && !this.draining)) return undefined;
    this.turns += 1;
    const oldestTurn = !this.byPriority || this.turns % this.agingEvery === 0;
    const entry = oldestTurn ? this.firstQueued() : this.highestQueued();
    if (entry === undefined) return undefined;
    entry.queued = false;
    this.queuedCount -= 1;
    this.leaveLevel(entry.priority);
    this.compact();
    return this.take(entry);
  }

  /** The queued entry that entered the queue first. */
  private firstQueued(): Entry<K> | undefined {
    while (this.fifoHead < this.fifo.length) {
      const entry = this.fifo[this.fifoHead] as Entry<K>;
      this.fifoHead += 1;
      if (entry.queued) return entry;
    }
    return undefined;
  }

  /** The first queued entry of the highest priority. */
  private highestQueued(): Entry<K> | undefined {
    for (const priority of this.priorities) {
      const level = this.levels.get(priority);
      if (level === undefined) continue;
      while (level.head < level.items.length) {
        const entry = level.items[level.head] as Entry<K>;
        level.head += 1;
        if (entry.queued && entry.priority === priority) {
          if (level.head > 1024 && level.head * 2 > level.items.length) {
            level.items.splice(0, level.head);
            level.head = 0;
          }
          return entry;
        }
      }
    }
    return undefined;
  }

  private compact(): void {
    if (this.fifoHead > 1024 && this.fifoHead * 2 > this.fifo.length) {
      this.fifo.splice(0, this.fifoHead);
      this.fifoHead = 0;
    }
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
    const entry = this.dirty.get(key);
    if (entry !== undefined) {
      // During shutdown a changed key is not run again: the next leader or start relists anyway.
      if (this.shutdown) this.dirty.delete(key);
      else if (this.minIntervalMs > 0) this.pushAfterInterval(entry, started);
      else this.push(entry);
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
    return this.queuedCount;
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

/** A priority as given, refused unless it is a safe integer. */
function checkPriority(priority: number): number {
  if (!Number.isSafeInteger(priority)) {
    throw new InvalidConfigError(`WorkQueue priority must be an integer; got ${String(priority)}`);
  }
  return priority;
}
