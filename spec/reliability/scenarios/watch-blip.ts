import { Registry } from 'prom-client';
import { silentLogger } from '../../../lib/observability/logger-silent.js';
import { createGadgetOperator, GADGET_OPERATOR_NAME } from '../fixtures/gadget-operator.js';
import {
  convergence,
  Driver,
  eventually,
  extDirIn,
  removeDir,
  scratchDir,
  startCluster,
} from '../support/cluster.js';

export interface WatchBlipFigures {
  /** `framework.ready` turned false while the watches failed. */
  reportedNotReady: boolean;
  /** Faults stopped → `framework.ready` true again (NaN: not within the bound). */
  readyAgainMs: number;
  /** Changes made after the blip converged. */
  problems: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A short API hiccup the watches survive by resuming from their resourceVersion (no relist): every
 * watch is dropped and its next reconnects answered 503. Readiness must drop while watches fail and
 * come back as soon as they are healthy again — not when the resumed watch ends minutes later.
 */
export async function runWatchBlip(readyBoundMs: number): Promise<WatchBlipFigures> {
  const dir = scratchDir('blip');
  const extDir = extDirIn(dir);
  const cluster = await startCluster(dir);
  const framework = createGadgetOperator({
    kubeConfig: cluster.kubeConfig,
    logger: silentLogger(),
    registry: new Registry(),
    extDir,
    workers: 2,
  });
  const driver = new Driver(cluster.client);
  const finalizer = `reconcilekit.io/${GADGET_OPERATOR_NAME}`;
  const converged = async (): Promise<boolean> =>
    (await convergence(cluster.client, driver, extDir, finalizer)).problems.length === 0;
  try {
    await framework.start();
    for (let i = 0; i < 5; i++) await driver.create(`b-${i}`, `v${i}`);
    await eventually(converged, 20_000, 'convergence before the blip', 100);
    const failing = cluster.server.faults.inject({ verb: 'watch', status: 503, times: 4 });
    const drop = cluster.server.faults.inject({ verb: 'watch', dropWatchAfterMs: 0 });
    let reportedNotReady = false;
    const until = Date.now() + 1_500;
    while (Date.now() < until) {
      if (!framework.ready) reportedNotReady = true;
      await sleep(50);
    }
    drop.remove();
    // Let the remaining 503s be used up by the reconnect backoff, then time how long readiness takes.
    await eventually(() => !framework.ready, 1_000, 'not ready', 20).catch(() => undefined);
    await sleep(3_000);
    failing.remove();
    const stopped = Date.now();
    let readyAgainMs = Number.NaN;
    await eventually(() => framework.ready, readyBoundMs, 'ready again', 50)
      .then(() => {
        readyAgainMs = Date.now() - stopped;
      })
      .catch(() => undefined);
    for (let i = 0; i < 5; i++) await driver.update(`b-${i}`, `after-${i}`);
    let problems: string[] = [];
    try {
      await eventually(converged, 20_000, 'convergence after the blip', 100);
    } catch {
      problems = (await convergence(cluster.client, driver, extDir, finalizer)).problems;
    }
    return { reportedNotReady, readyAgainMs, problems };
  } finally {
    await framework.stop();
    await cluster.close();
    removeDir(dir);
  }
}
