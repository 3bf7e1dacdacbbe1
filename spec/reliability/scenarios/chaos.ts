import { Registry } from 'prom-client';
import { silentLogger } from '../../../lib/observability/logger-silent.js';
import { createGadgetOperator, GADGET_OPERATOR_NAME } from '../fixtures/gadget-operator.js';
import { GadgetTracker } from '../fixtures/gadget-resources.js';
import {
  convergence,
  Driver,
  eventually,
  extDirIn,
  removeDir,
  scratchDir,
  startCluster,
  type FaultCounts,
} from '../support/cluster.js';
import { heapAfterGcMiB, UnhandledRejections } from '../support/process-watch.js';

export interface ChaosOptions {
  /** Gadgets created over the run (each maybe updated, maybe deleted). */
  objects: number;
  /** How long faults are injected while the driver works. */
  faultMs: number;
  /** Bound on the time to converge once faults stop. */
  convergeTimeoutMs: number;
  /** Chance that a request fails with an injected error (split over 500, 503, 429, 409). */
  errorRate?: number;
  /** Every watch is dropped this long after it starts. */
  dropWatchAfterMs?: number;
}

/** What a chaos run measured. Assertions are the caller's. */
export interface ChaosFigures {
  objects: number;
  live: number;
  deleted: number;
  updates: number;
  faults: FaultCounts;
  convergeMs: number;
  /** Problems left at the end (empty when converged). */
  problems: string[];
  maxConcurrentPerKey: number;
  unhandledRejections: number;
  heapBaselineMiB: number;
  heapPeakMiB: number;
  heapFinalMiB: number;
  heapSettledMiB: number;
  /** Work queue depth and active workers after convergence (both 0 when nothing is stuck). */
  queueDepth: number;
  activeWorkers: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function gauge(registry: Registry, name: string): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return Number.NaN;
  const values = (await metric.get()).values;
  return values.reduce((sum, v) => sum + v.value, 0);
}

/**
 * Scenario 1: Gadgets are created, updated and deleted in random order while the server fails ~10 % of
 * requests (500, 503, 429 with Retry-After, 409), drops every watch after a few seconds and expires
 * resumes (410). Then the faults stop and the run waits for convergence.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosFigures> {
  const dir = scratchDir('chaos');
  const extDir = extDirIn(dir);
  const unhandled = new UnhandledRejections().start();
  const cluster = await startCluster(dir);
  const registry = new Registry();
  const tracker = new GadgetTracker();
  const framework = createGadgetOperator({
    kubeConfig: cluster.kubeConfig,
    logger: silentLogger(),
    registry,
    extDir,
    tracker,
    workers: 4,
  });
  const driver = new Driver(cluster.client);
  const finalizer = `reconcilekit.io/${GADGET_OPERATOR_NAME}`;
  const converged = async (): Promise<boolean> =>
    (await convergence(cluster.client, driver, extDir, finalizer)).problems.length === 0;
  try {
    await framework.start();
    // Warm up: a few objects converge, so the baseline heap includes loaded code and open connections.
    for (let i = 0; i < 5; i++) await driver.create(`warm-${i}`, `w${i}`);
    await eventually(converged, 20_000, 'warm-up objects to converge', 100);
    const heapBaselineMiB = await heapAfterGcMiB();

    const rate = (o.errorRate ?? 0.1) / 4;
    const handles = [
      cluster.server.faults.inject({ status: 500, probability: rate }),
      cluster.server.faults.inject({ status: 503, probability: rate }),
      cluster.server.faults.inject({ status: 429, retryAfterSeconds: 1, probability: rate }),
      cluster.server.faults.inject({ status: 409, probability: rate }),
      cluster.server.faults.inject({ verb: 'watch', dropWatchAfterMs: o.dropWatchAfterMs ?? 2_000 }),
      cluster.server.faults.inject({ verb: 'watch', expireWatch: true, probability: 0.3 }),
    ];
    let heapPeakMiB = heapBaselineMiB;
    const sampler = setInterval(() => {
      heapPeakMiB = Math.max(heapPeakMiB, process.memoryUsage().heapUsed / 1024 / 1024);
    }, 250);
    const faultsUntil = Date.now() + o.faultMs;
    // Each object's own operations keep their order (create, maybe update, maybe delete); objects are
    // spread over lanes that run concurrently, each lane paced to fill the fault window.
    const lanes = 4;
    const perObject: (() => Promise<void>)[][][] = Array.from({ length: lanes }, () => []);
    for (let i = 1; i <= o.objects; i++) {
      const name = `c-${i}`;
      const ops: (() => Promise<void>)[] = [() => driver.create(name, `v${i}`)];
      if (Math.random() < 0.6)
        ops.push(() => driver.update(name, `u${i}-${Math.floor(Math.random() * 1e6)}`));
      if (Math.random() < 0.4) ops.push(() => driver.delete(name));
      perObject[i % lanes]!.push(ops);
    }
    // Random interleaving of the lane's objects that keeps each object's own order.
    const plans = perObject.map((queues) => {
      const plan: (() => Promise<void>)[] = [];
      const open = queues.filter((q) => q.length > 0);
      while (open.length > 0) {
        const at = Math.floor(Math.random() * open.length);
        plan.push(open[at]!.shift()!);
        if (open[at]!.length === 0) open.splice(at, 1);
      }
      return plan;
    });
    await Promise.all(
      plans.map(async (plan) => {
        const pause = Math.max(5, Math.floor((o.faultMs * 0.8) / Math.max(1, plan.length)));
        for (const op of plan) {
          await op();
          await sleep(Math.random() * pause * 2);
        }
      }),
    );
    // Deleting warm-up objects too: the delete path under faults.
    await driver.delete('warm-0');
    if (Date.now() < faultsUntil) await sleep(faultsUntil - Date.now());
    for (const h of handles) h.remove();
    cluster.server.faults.clear();
    clearInterval(sampler);

    const stopped = Date.now();
    let problems: string[] = [];
    try {
      await eventually(converged, o.convergeTimeoutMs, 'convergence after chaos', 100);
    } catch {
      problems = (await convergence(cluster.client, driver, extDir, finalizer)).problems;
    }
    const convergeMs = Date.now() - stopped;
    const heapFinalMiB = await heapAfterGcMiB();
    await sleep(1_500);
    const heapSettledMiB = await heapAfterGcMiB();
    return {
      objects: o.objects + 5,
      live: driver.live.size,
      deleted: driver.deleted.size,
      updates: driver.updates,
      faults: cluster.faults,
      convergeMs,
      problems,
      maxConcurrentPerKey: tracker.maxConcurrentPerKey,
      unhandledRejections: unhandled.seen.length,
      heapBaselineMiB,
      heapPeakMiB,
      heapFinalMiB,
      heapSettledMiB,
      queueDepth: await gauge(registry, 'workqueue_depth'),
      activeWorkers: await gauge(registry, 'controller_runtime_active_workers'),
    };
  } finally {
    await framework.stop();
    await cluster.close();
    unhandled.stop();
    removeDir(dir);
  }
}
