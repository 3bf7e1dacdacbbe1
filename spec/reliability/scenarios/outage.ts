import { join } from 'node:path';
import { Registry } from 'prom-client';
import { startApiServer, type ApiServer } from '../../../lib/apiserver/index.js';
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
} from '../support/cluster.js';
import { UnhandledRejections } from '../support/process-watch.js';

export interface OutageOptions {
  /** Gadgets converged before the outage. */
  objects: number;
  /** How long the API server is away. */
  outageMs: number;
  /** Bound on the time to converge after the server returns. */
  convergeTimeoutMs: number;
}

export interface OutageFigures {
  objects: number;
  outageMs: number;
  /** Whether `framework.ready` turned false at some point of the outage. */
  reportedNotReady: boolean;
  /** Server back → `framework.ready` true again (NaN: not within the converge bound). Every watch must
   * have reconnected, which the capped backoff may delay by up to its cap (30 s, +25 % jitter). */
  readyAgainMs: number;
  /** List/watch restarts counted during the outage (bounded by the capped backoff). */
  watchRestartsDuringOutage: number;
  /** Watchers (Gadget + owned ConfigMap) whose restarts are counted. */
  watchers: number;
  /** Server back → every change made after it converged. */
  convergeMs: number;
  problems: string[];
  unhandledRejections: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function counter(registry: Registry, name: string): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return Number.NaN;
  return (await metric.get()).values.reduce((sum, v) => sum + v.value, 0);
}

/**
 * Scenario 5: the API server goes away and comes back on the same address with the same `dataFile`.
 * The framework (not restarted) must notice (not ready), retry with capped backoff, resume and
 * converge the changes made after the server returned.
 */
export async function runOutage(o: OutageOptions): Promise<OutageFigures> {
  const dir = scratchDir('outage');
  const extDir = extDirIn(dir);
  const dataFile = join(dir, 'state.json');
  const unhandled = new UnhandledRejections().start();
  const cluster = await startCluster(dir, { dataFile });
  const port = Number(new URL(cluster.server.url).port);
  const registry = new Registry();
  const framework = createGadgetOperator({
    kubeConfig: cluster.kubeConfig,
    logger: silentLogger(),
    registry,
    extDir,
    tracker: new GadgetTracker(),
    workers: 2,
  });
  const driver = new Driver(cluster.client);
  const finalizer = `reconcilekit.io/${GADGET_OPERATOR_NAME}`;
  const converged = async (): Promise<boolean> =>
    (await convergence(cluster.client, driver, extDir, finalizer)).problems.length === 0;
  let revived: ApiServer | undefined;
  try {
    await framework.start();
    for (let i = 0; i < o.objects; i++) await driver.create(`o-${i}`, `v${i}`);
    await eventually(converged, 20_000, 'convergence before the outage', 100);

    const restartsBefore = await counter(registry, 'reconcilekit_watch_restarts_total');
    await cluster.server.close();
    let reportedNotReady = false;
    const until = Date.now() + o.outageMs;
    while (Date.now() < until) {
      if (!framework.ready) reportedNotReady = true;
      await sleep(100);
    }
    const watchRestartsDuringOutage =
      (await counter(registry, 'reconcilekit_watch_restarts_total')) - restartsBefore;
    revived = await startApiServer({ host: '127.0.0.1', port, dataFile });
    const back = Date.now();
    // Changes after the return: updates, deletions and new objects must all be picked up.
    for (let i = 0; i < o.objects; i += 3) await driver.update(`o-${i}`, `after-${i}`);
    for (let i = 1; i < o.objects; i += 3) await driver.delete(`o-${i}`);
    for (let i = 0; i < Math.ceil(o.objects / 3); i++) await driver.create(`n-${i}`, `new${i}`);
    let problems: string[] = [];
    try {
      await eventually(converged, o.convergeTimeoutMs, 'convergence after the outage', 100);
    } catch {
      problems = (await convergence(cluster.client, driver, extDir, finalizer)).problems;
    }
    const convergeMs = Date.now() - back;
    let readyAgainMs = Number.NaN;
    await eventually(() => framework.ready, o.convergeTimeoutMs, 'ready again', 50)
      .then(() => {
        readyAgainMs = Date.now() - back;
      })
      .catch(() => undefined);
    return {
      objects: o.objects,
      outageMs: o.outageMs,
      reportedNotReady,
      readyAgainMs,
      watchRestartsDuringOutage,
      watchers: 2,
      convergeMs,
      problems,
      unhandledRejections: unhandled.seen.length,
    };
  } finally {
    await framework.stop();
    await cluster.close();
    await revived?.close();
    unhandled.stop();
    removeDir(dir);
  }
}
