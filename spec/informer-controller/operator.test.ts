import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, InformerController, Operator, SimpleReconciler } from '../../lib/index.js';
import { eventually, SOURCE, startHarness, widget, type Harness } from './support.js';

describe('InformerController under Operator', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it("runs with the operator's registry and informer cache", async () => {
    const op = new Operator({ kubeConfig: h.kubeConfig, logger: createLogger({ silent: true }) });
    const seen: string[] = [];
    const c = new InformerController({
      name: 'grafana-style',
      kubeConfig: h.kubeConfig,
      logger: createLogger({ silent: true }),
    });
    c.addInformer(SOURCE, 'widgets');
    c.addReconciler(new SimpleReconciler((_ctx, req) => void seen.push(req.action)), 'widgets');
    op.addController(c);
    await op.start();
    try {
      await h.client.create(widget('w1'));
      await eventually(() => seen.length === 1);
      expect(seen).toEqual(['created']);
      expect(op.informers?.size).toBe(1);
      expect(await op.metrics.metrics()).toContain(
        'informer_events_total{event_type="CREATE",kind="widgets"} 1',
      );
    } finally {
      await op.stop();
    }
  });

  it('B18: a controller whose start fails makes start() reject and stops the InformerController', async () => {
    const op = new Operator({ kubeConfig: h.kubeConfig, logger: createLogger({ silent: true }) });
    const c = new InformerController({ kubeConfig: h.kubeConfig, logger: createLogger({ silent: true }) });
    c.addInformer(SOURCE, 'widgets');
    c.addReconciler(new SimpleReconciler(), 'widgets');
    op.addController(c);
    op.addController({
      name: 'broken',
      start: () => Promise.reject(new Error('cannot start')),
      stop: async () => {},
    });
    await expect(op.start()).rejects.toThrow('cannot start');
    await eventually(() => !c.ready);
    expect(c.ready).toBe(false);
  });
});
