// The helpers of issue 12 around health and metrics: your own readiness and liveness checks (sync or
// async, a failing or hanging one named in /readyz?verbose), the process metrics on the controller's
// registry (opt-out), and controller_runtime_reconcile_panics_total for programming errors.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Controller } from '../../lib/controller/controller.js';
import { InvalidConfigError } from '../../lib/errors/invalid-config-error.js';
import { createLogger } from '../../lib/observability/logger.js';
import { isPanic } from '../../lib/observability/controller-metrics.js';
import { eventually, useHarness, widget, WIDGET, type Widget } from './harness.js';

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

describe('health checks and metrics', () => {
  const t = useHarness();

  it('serves your readiness and liveness checks next to the engine’s, sync and async, with reasons', async () => {
    let database: string | undefined = 'database not reachable';
    const ctrl = new Controller<Widget>({
      name: 'checks',
      kubeConfig: t.h.kubeConfig,
      resource: WIDGET,
      reconciler: { reconcile: () => undefined },
      healthServer: {
        host: '127.0.0.1',
        port: 0,
        readinessChecks: {
          database: async () => {
            await new Promise((r) => setTimeout(r, 5));
            return database;
          },
          throws: () => undefined,
        },
        livenessChecks: { 'event-loop': () => undefined },
      },
      logger: createLogger({ silent: true }),
    });
    t.stops.push(() => ctrl.stop());
    await ctrl.start();
    const url = ctrl.healthUrl ?? '';
    const notReady = await get(`${url}/readyz?verbose`);
    expect(notReady.status).toBe(503);
    expect(notReady.body).toContain('[+]cache-synced ok');
    expect(notReady.body).toContain('[-]database failed: database not reachable');
    expect(notReady.body).toContain('[+]throws ok');
    database = undefined;
    expect(await get(`${url}/readyz`)).toEqual({ status: 200, body: 'ok' });
    const live = await get(`${url}/healthz?verbose`);
    expect(live.status).toBe(200);
    expect(live.body).toContain('[+]event-loop ok');
  });

  it('refuses a check that is not a function or that would hide one of the engine’s', () => {
    const make = (readinessChecks: Record<string, unknown>) =>
      new Controller<Widget>({
        name: 'bad-checks',
        kubeConfig: t.h.kubeConfig,
        resource: WIDGET,
        reconciler: { reconcile: () => undefined },
        healthServer: { port: 0, readinessChecks: readinessChecks as never },
      });
    expect(() => make({ db: 'yes' })).toThrow(
      new InvalidConfigError(
        'config.healthServer.readinessChecks.db must be a function returning undefined or a reason',
      ),
    );
    expect(() => make({ 'cache-synced': () => undefined })).toThrow(/the engine has a check of that name/);
  });

  it('adds the process metrics to the registry unless told not to', async () => {
    const withThem = new Registry();
    const without = new Registry();
    for (const [registry, collect] of [
      [withThem, true],
      [without, false],
    ] as const) {
      new Controller<Widget>({
        name: `metrics-${String(collect)}`,
        kubeConfig: t.h.kubeConfig,
        resource: WIDGET,
        reconciler: { reconcile: () => undefined },
        registry,
        collectDefaultMetrics: collect,
      });
    }
    expect(await withThem.getSingleMetricAsString('process_cpu_user_seconds_total')).toMatch(
      /process_cpu_user_seconds_total \d/,
    );
    expect(withThem.getSingleMetric('nodejs_eventloop_lag_seconds')).toBeDefined();
    expect(without.getSingleMetric('process_cpu_user_seconds_total')).toBeUndefined();
  });

  it('counts programming errors as panics, and ordinary failures not', async () => {
    expect(isPanic(new TypeError("Cannot read properties of undefined (reading 'spec')"))).toBe(true);
    expect(isPanic('a thrown string')).toBe(true);
    expect(isPanic(new Error('cloud API unavailable'))).toBe(false);
    const registry = new Registry();
    const ctrl = new Controller<Widget>({
      name: 'panicky',
      kubeConfig: t.h.kubeConfig,
      resource: WIDGET,
      registry,
      reconciler: {
        reconcile: (_ctx, req) => {
          if (req.object.metadata?.name === 'bug') {
            const spec = (req.object as { spec?: { nested?: { deep: string } } }).spec;
            // TypeError: reading 'deep' of undefined.
            if (spec?.nested!.deep.length === 0) return;
          }
          throw new Error('cloud API unavailable');
        },
      },
      logger: createLogger({ silent: true }),
    });
    t.stops.push(() => ctrl.stop());
    await ctrl.start();
    await t.h.client.create(widget('bug'));
    await t.h.client.create(widget('flaky'));
    const value = async (name: string): Promise<number> =>
      (await registry.getSingleMetric(name)?.get())?.values.find((v) => v.labels.controller === 'panicky')
        ?.value ?? 0;
    await eventually(async () => (await value('controller_runtime_reconcile_errors_total')) >= 4);
    const panics = await value('controller_runtime_reconcile_panics_total');
    const errors = await value('controller_runtime_reconcile_errors_total');
    expect(panics).toBeGreaterThanOrEqual(1);
    expect(panics).toBeLessThan(errors);
  });
});
