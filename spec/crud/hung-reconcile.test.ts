// One hanging reconcile: readiness says so when every worker is stuck, the default timeout frees the
// worker, and stop() is bounded by gracefulShutdownMs.
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { REAL_BACKEND } from '../real/real-backend.js';
import { DEFAULT_RECONCILE_TIMEOUT_MS } from '../../lib/engine/defaults.js';
import { Framework } from '../../lib/crud/framework.js';
import { WorkerPool } from '../../lib/engine/worker-pool.js';
import { ControllerMetrics } from '../../lib/observability/controller-metrics.js';
import { createLogger } from '../../lib/observability/logger.js';
import { ExponentialRateLimiter } from '../../lib/queue/rate-limiter.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import {
  eventually,
  RecordingResource,
  startHarness,
  ref,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from './harness.js';

describe('a hanging reconcile', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
  });

  it('the default reconcile timeout is 5 minutes', () => {
    expect(DEFAULT_RECONCILE_TIMEOUT_MS).toBe(300_000);
  });

  it('readiness names the keys once every worker is stuck past the bound', async () => {
    const registry = new Registry();
    const pool = new WorkerPool({
      name: 'stuck',
      workers: 2,
      minIntervalMs: 0,
      rateLimiter: new ExponentialRateLimiter({ baseDelayMs: 5, factor: 2, maxDelayMs: 100 }),
      registry,
      metrics: new ControllerMetrics({ registry, controller: 'stuck' }),
      logger: createLogger({ silent: true }),
      process: (_queue, key) => (key === 'quick' ? Promise.resolve() : new Promise<void>(() => undefined)),
    });
    const stop = new AbortController();
    pool.start(stop.signal, ['hang-1']);
    await new Promise((r) => setTimeout(r, 60));
    expect(pool.allStuck(50)).toBeUndefined(); // one worker is still free
    pool.add('hang-2');
    pool.add('quick');
    await new Promise((r) => setTimeout(r, 60));
    expect(pool.allStuck(50)).toMatch(
      /all 2 workers stuck .*hang-1.*hang-2|all 2 workers stuck .*hang-2.*hang-1/,
    );
    expect(pool.allStuck(60_000)).toBeUndefined();
    pool.stopNow('test over');
  });

  it('stop() returns within gracefulShutdownMs even when a reconcile ignores its signal', async () => {
    h = await startHarness();
    const recorder = new RecordingResource();
    recorder.onCreate = () => new Promise<void>(() => undefined); // never settles, ignores the signal
    const fw = new Framework<Widget>({
      name: 'hung',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
      logger: createLogger({ silent: true }),
      reconcileTimeoutMs: 0,
      gracefulShutdownMs: 300,
      healthServer: false,
    });
    await fw.start();
    await h.client.create(widget('forever'));
    await eventually(() => recorder.count('create', 'forever') === 1);
    const started = performance.now();
    await fw.stop();
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

describe('Retry-After on 429', () => {
  // Skipped on the real backend (`make test-real`): fault injection needs the embedded server.
  it.skipIf(REAL_BACKEND)(
    'a pass failing with 429 Retry-After: 1 is retried no sooner than a second later',
    async () => {
      const h = await startHarness();
      const recorder = new RecordingResource();
      const attempts: number[] = [];
      recorder.onCreate = async () => {
        attempts.push(performance.now());
        await h.client.get({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          plural: 'configmaps',
          namespace: 'default',
          name: 'x',
        });
      };
      const fault = h.server.faults.inject({
        verb: 'get',
        resource: 'configmaps',
        status: 429,
        retryAfterSeconds: 1,
      });
      const fw = new Framework<Widget>({
        name: 'throttled',
        kubeConfig: h.kubeConfig,
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
        resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
        logger: createLogger({ silent: true }),
        healthServer: false,
      });
      try {
        await fw.start();
        await h.client.create(widget('throttled'));
        await eventually(() => attempts.length >= 3, 5000, 'three attempts');
        fault.remove();
        const gaps = attempts.slice(1, 3).map((t, i) => t - (attempts[i] ?? 0));
        for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(950);
      } finally {
        await fw.stop();
        await h.close();
      }
    },
  );

  // Skipped on the real backend (`make test-real`): fault injection needs the embedded server.
  it.skipIf(REAL_BACKEND)(
    'the finalizer patch waits out Retry-After too: two 429s with Retry-After: 1 delay the finalizer by ≥ 2 s',
    async () => {
      const h = await startHarness();
      h.server.faults.inject({
        verb: 'patch',
        resource: 'widgets',
        status: 429,
        retryAfterSeconds: 1,
        times: 2,
      });
      const fw = new Framework<Widget>({
        name: 'throttled-finalizer',
        kubeConfig: h.kubeConfig,
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
        resourceSets: [new ResourceSet<Widget>({ resources: [new RecordingResource()] })],
        logger: createLogger({ silent: true }),
        healthServer: false,
      });
      try {
        await fw.start();
        const created = performance.now();
        await h.client.create(widget('slow-finalizer'));
        await eventually(
          async () =>
            (await h.client.get<Widget>(ref('slow-finalizer'))).metadata?.finalizers?.includes(
              fw.config.finalizer as string,
            ),
          10_000,
          'the finalizer',
        );
        expect(performance.now() - created).toBeGreaterThanOrEqual(1_900);
      } finally {
        await fw.stop();
        await h.close();
      }
    },
  );
});
