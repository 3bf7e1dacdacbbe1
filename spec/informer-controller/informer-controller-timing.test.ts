import type { Span, Tracer } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReconcileError, SimpleReconciler, type InformerController } from '../../lib/index.js';
import { eventually, makeController, SOURCE, startHarness, widget, type Harness } from './support.js';

interface RecordedSpan {
  name: string;
  status?: { code: number; message?: string };
  ended: boolean;
  attributes: Record<string, unknown>;
}

function recordingTracer(spans: RecordedSpan[]): Tracer {
  const startSpan = (name: string, options?: { attributes?: Record<string, unknown> }): Span => {
    const rec: RecordedSpan = { name, ended: false, attributes: { ...options?.attributes } };
    spans.push(rec);
    const span = {
      setStatus(status: { code: number; message?: string }) {
        rec.status = status;
        return span;
      },
      setAttribute(key: string, value: unknown) {
        rec.attributes[key] = value;
        return span;
      },
      recordException() {},
      end() {
        rec.ended = true;
      },
      spanContext: () => ({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }),
      isRecording: () => true,
    };
    return span as unknown as Span;
  };
  return { startSpan, startActiveSpan: () => undefined };
}

describe('InformerController timing, metrics and spans', () => {
  let h: Harness | undefined;
  const controllers: InformerController[] = [];
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    await h?.close();
    vi.useRealTimers();
  });

  it('B2: DEFAULT_RETRY_POLICY — calls at 0, 5, 15, 35, 75, 155, 315 s, 7 in all, errorHandler 7 times', async () => {
    vi.useFakeTimers({
      shouldAdvanceTime: true,
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
    });
    h = await startHarness();
    const at: number[] = [];
    let errors = 0;
    const c = makeController(h, { errorHandler: () => void (errors += 1) }, controllers);
    c.addInformer(SOURCE, 'widgets');
    c.addReconciler(
      new SimpleReconciler(() => {
        at.push(Date.now());
        throw new Error('always fails');
      }),
      'widgets',
    );
    await c.start();
    await h.client.create(widget('w1'));
    await eventually(() => at.length === 1);
    for (let i = 0; i < 40; i++) await vi.advanceTimersByTimeAsync(10_000);
    const rel = at.map((t) => Math.round((t - at[0]!) / 1000));
    expect(rel).toEqual([0, 5, 15, 35, 75, 155, 315]);
    expect(errors).toBe(7);
    expect(c.pendingObjects).toBe(0);
  });

  it('B16/B17: grafana series under metricsNamespace; spans with ERROR status on failure', async () => {
    h = await startHarness();
    const spans: RecordedSpan[] = [];
    const c = makeController(
      h,
      {
        metricsNamespace: 'app',
        tracer: recordingTracer(spans),
        retryPolicy: null,
        errorHandler: () => undefined,
      },
      controllers,
    );
    c.addInformer(SOURCE, 'widgets');
    c.addReconciler(
      new SimpleReconciler((_ctx, req) => {
        if (req.object.metadata?.name === 'bad') throw new ReconcileError('boom');
      }),
      'widgets',
    );
    await c.start();
    await h.client.create(widget('w1'));
    await h.client.create(widget('bad'));
    await eventually(
      () => spans.filter((s) => s.name === 'controller-event-reconcile' && s.ended).length === 2,
    );
    const text = await c.metrics.metrics();
    expect(text).toContain('app_informer_events_total{event_type="CREATE",kind="widgets"} 2');
    expect(text).toContain(
      'app_reconciler_process_duration_seconds_count{event_type="CREATE",kind="widgets"} 2',
    );
    expect(text).toContain(
      'app_informer_reconcile_duration_seconds_count{event_type="CREATE",kind="widgets"} 2',
    );
    expect(text).toContain('app_reconciler_errors_total{event_type="CREATE",kind="widgets"} 1');
    expect(text).toContain('app_ongoing_reconcile_processes{event_type="CREATE",kind="widgets"} 0');
    // The core's controller-runtime series are in the same registry.
    expect(text).toContain('controller_runtime_reconcile_total');
    expect(spans.filter((s) => s.name === 'controller-event-add')).toHaveLength(2);
    const failed = spans.filter((s) => s.status?.code === 2);
    expect(failed.map((s) => s.name)).toEqual(['controller-event-reconcile']);
    expect(failed[0]!.attributes['object.name']).toBe('bad');
    expect(spans.every((s) => s.ended)).toBe(true);
  });
});
