import { setMaxListeners } from 'node:events';
import type { Registry } from 'prom-client';
import type { ControllerMetrics } from '../observability/controller-metrics.js';
import type { Logger } from '../observability/logger.js';
import type { RateLimiter } from '../queue/rate-limiter.js';
import { LOW_PRIORITY, type WorkQueueOrder } from '../queue/priority.js';
import { WorkQueue } from '../queue/work-queue.js';

/**
 * Passes the workers start in one turn of the event loop before they wait for the next. A pass that makes no
 * request (every read from the cache, nothing to write) never leaves the microtask queue, so a backlog of such
 * passes (the second pass of every object after the operator's own writes) ran in one turn: timers, watch
 * events and the health server waited for all of them, and V8 kept what those passes made alive until the
 * turn ended (at 10,000 objects, 20 MiB more old space in under a second: docs/benchmarks.md).
 */
export const PASSES_PER_TURN = 64;

/** What the pool needs to build queues and run keys. */
export interface WorkerPoolOptions {
  /** Controller name: queue `name` and `controller` labels. */
  name: string;
  /** Concurrent workers. */
  workers: number;
  /** Minimum time between the starts of two runs of one key (the queue's `minIntervalMs`); 0 disables. */
  minIntervalMs: number;
  /** Order of the queue: priorities with aging (default), or FIFO. */
  order?: WorkQueueOrder;
  /** Per-key retry delays, shared by every queue the pool builds (backoff survives a leadership term). */
  rateLimiter: RateLimiter;
  /** Registry for the workqueue_* metrics. */
  registry: Registry;
  /** Controller metrics (active workers). */
  metrics: ControllerMetrics;
  /** Logger for unexpected engine errors. */
  logger: Logger;
  /** Runs one key; decides the queue action (forget, requeue) itself. */
  process: (queue: WorkQueue, key: string, signal: AbortSignal) => Promise<void>;
}

/**
 * The work queue and its workers, per run (a leadership term, or the whole life without leader
 * election). Keys can be added at any time; they wait in the queue until workers run.
 */
export class WorkerPool {
  private readonly o: WorkerPoolOptions;
  private queue: WorkQueue;
  private workers: Promise<void>[] = [];
  private abort: AbortController | undefined;
  private closed = false;
  /** What each busy worker runs, and since when (performance.now()). */
  private readonly busy = new Map<number, { key: string; since: number }>();
  /** Passes started in this turn of the event loop, and the turn's end (a setImmediate). */
  private turnPasses = 0;
  private turnEnd: Promise<void> | undefined;

  constructor(options: WorkerPoolOptions) {
    this.o = options;
    this.queue = this.newQueue();
  }

  /** True while workers run. */
  get running(): boolean {
    return this.abort !== undefined;
  }

  /** Marks `key` for a reconcile at `priority` (deduplicated while it waits, at the higher priority). */
  add(key: string, priority?: number): void {
    this.queue.add(key, priority);
  }

  /**
   * Starts the workers; `keys` are enqueued first, at low priority (everything known: a new term must see
   * it all, but a change a user makes meanwhile goes first).
   */
  start(parent: AbortSignal, keys: Iterable<string>): void {
    if (this.closed || this.abort !== undefined) return;
    const abort = new AbortController();
    this.abort = abort;
    // Once per run, not per reconcile: the worker signal aborts on stop, lost leadership or `parent`.
    const signal = AbortSignal.any([parent, abort.signal]);
    // Every in-flight request of every reconcile (and each Warning Event write) adds one abort listener
    // to this long-lived signal: dozens at once are normal, not a leak (R5: MaxListenersExceededWarning).
    setMaxListeners(0, signal);
    for (const key of keys) this.queue.add(key, LOW_PRIORITY);
    const queue = this.queue;
    for (let i = 0; i < this.o.workers; i++) this.workers.push(this.worker(queue, signal, i));
  }

  /** Aborts in-flight reconciles at once and replaces the queue, so the next run starts clean. */
  stopNow(reason: string): void {
    const abort = this.abort;
    if (abort === undefined) return;
    this.abort = undefined;
    abort.abort(new Error(reason));
    this.queue.shutDown();
    if (!this.closed) this.queue = this.newQueue();
    this.workers = [];
  }

  /**
   * Graceful end: no new work; in-flight reconciles get `graceMs`, then their signal aborts. Resolves
   * once every worker returned.
   */
  async close(graceMs: number): Promise<boolean> {
    this.closed = true;
    this.queue.shutDown();
    const workers = Promise.allSettled(this.workers);
    let timer: NodeJS.Timeout | undefined;
    const graceOver = await Promise.race([
      workers.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => {
          resolve(true);
        }, graceMs);
      }),
    ]);
    clearTimeout(timer);
    this.abort?.abort(new Error('framework stopped'));
    this.abort = undefined;
    await workers;
    return graceOver;
  }

  /** Busy workers, queue depth (by priority) and the oldest waiting key's age (the live view). */
  snapshot(): {
    workersBusy: number;
    workers: number;
    queueDepth: number;
    oldestWaitingMs: number;
    queueOrder: WorkQueueOrder;
    depthByPriority: { priority: number; depth: number }[];
  } {
    return {
      workersBusy: this.busy.size,
      workers: this.o.workers,
      queueDepth: this.queue.len(),
      oldestWaitingMs: this.queue.oldestWaitingMs(),
      queueOrder: this.queue.order,
      depthByPriority: this.queue.depthByPriority(),
    };
  }

  /** The priority `key` waits with, if it waits (the live view). */
  priorityOf(key: string): number | undefined {
    return this.queue.priorityOf(key);
  }

  /** Keys a worker runs now (the live view). */
  runningKeys(): string[] {
    return [...this.busy.values()].map((b) => b.key);
  }

  /** When (Date.now() ms) `key` is due again from a delayed add, if any. */
  dueAt(key: string): number | undefined {
    return this.queue.dueAt(key);
  }

  /**
   * When every worker has been on one pass for longer than `boundMs`: a message naming the keys (for
   * readiness). Undefined while at least one worker is free or making progress.
   */
  allStuck(boundMs: number): string | undefined {
    if (this.busy.size < this.o.workers || this.o.workers === 0) return undefined;
    const now = performance.now();
    const stuck = [...this.busy.values()].filter((b) => now - b.since > boundMs);
    if (stuck.length < this.o.workers) return undefined;
    const keys = stuck.map((b) => `${b.key} (${Math.round((now - b.since) / 1000)} s)`).join(', ');
    return `all ${this.o.workers} workers stuck on one reconcile each for over ${Math.round(boundMs / 1000)} s: ${keys}`;
  }

  private async worker(queue: WorkQueue, signal: AbortSignal, index: number): Promise<void> {
    for (;;) {
      const turnOver = this.startPass();
      if (turnOver !== undefined) await turnOver;
      const key = queue.tryGet() ?? (await queue.get());
      if (key === undefined) return;
      this.o.metrics.workerStarted();
      this.busy.set(index, { key, since: performance.now() });
      try {
        await this.o.process(queue, key, signal);
      } catch (err) {
        this.o.logger.error('unexpected engine error', { err, object: key });
        queue.addRateLimited(key);
      } finally {
        this.busy.delete(index);
        this.o.metrics.workerFinished();
        queue.done(key);
      }
    }
  }

  /** Counts a pass of this turn; past {@link PASSES_PER_TURN}, the promise of the turn's end to wait for. */
  private startPass(): Promise<void> | undefined {
    this.turnPasses += 1;
    this.turnEnd ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        this.turnPasses = 0;
        this.turnEnd = undefined;
        resolve();
      });
    });
    return this.turnPasses > PASSES_PER_TURN ? this.turnEnd : undefined;
  }

  private newQueue(): WorkQueue {
    const { name, rateLimiter, registry, minIntervalMs, order } = this.o;
    return new WorkQueue({ name, controller: name, rateLimiter, registry, minIntervalMs, order });
  }
}
