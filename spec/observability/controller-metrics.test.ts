import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ControllerMetrics } from '../../lib/observability/controller-metrics.js';

describe('ControllerMetrics', () => {
  it('pre-initialises every series under controller-runtime names', async () => {
    const registry = new Registry();
    new ControllerMetrics({ registry, controller: 'web' });
    const text = await registry.metrics();
    for (const result of ['success', 'error', 'requeue', 'requeue_after']) {
      expect(text).toContain(`controller_runtime_reconcile_total{controller="web",result="${result}"} 0`);
    }
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="web"} 0');
    expect(text).toContain('controller_runtime_active_workers{controller="web"} 0');
    expect(text).toContain('controller_runtime_max_concurrent_reconciles{controller="web"} 0');
    expect(text).toContain('controller_runtime_reconcile_time_seconds_count{controller="web"} 0');
    expect(text).toContain(
      'reconcilekit_framework_event_duration_seconds_count{controller="web",event="update"} 0',
    );
    expect(text).toContain(
      'reconcilekit_framework_event_duration_seconds_count{controller="web",event="delete"} 0',
    );
  });

  it('counts results, errors, durations and workers', async () => {
    const registry = new Registry();
    const metrics = new ControllerMetrics({ registry, controller: 'web' });
    metrics.setMaxConcurrentReconciles(4);
    metrics.workerStarted();
    metrics.workerStarted();
    metrics.workerFinished();
    metrics.observeReconcile('success', 0.02, 'update');
    metrics.observeReconcile('error', 0.5, 'delete');
    metrics.observeReconcile('error', 0.5, 'update');
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="web",result="success"} 1');
    expect(text).toContain('controller_runtime_reconcile_total{controller="web",result="error"} 2');
    expect(text).toContain('controller_runtime_reconcile_errors_total{controller="web"} 2');
    expect(text).toContain('controller_runtime_active_workers{controller="web"} 1');
    expect(text).toContain('controller_runtime_max_concurrent_reconciles{controller="web"} 4');
    expect(text).toContain('controller_runtime_reconcile_time_seconds_count{controller="web"} 3');
    expect(text).toContain(
      'reconcilekit_framework_event_duration_seconds_count{controller="web",event="update"} 2',
    );
  });

  it('lets two controllers share one registry', async () => {
    const registry = new Registry();
    const a = new ControllerMetrics({ registry, controller: 'a' });
    new ControllerMetrics({ registry, controller: 'b' });
    a.observeReconcile('success', 0.01);
    const text = await registry.metrics();
    expect(text).toContain('controller_runtime_reconcile_total{controller="a",result="success"} 1');
    expect(text).toContain('controller_runtime_reconcile_total{controller="b",result="success"} 0');
  });
});
