import { describe, expect, it } from 'vitest';
import { measureWindow, percentile, startLiveViewLoad } from '../../debug/support/stream-flood.js';
import { recordFigures } from '../support/figures.js';

const WINDOW_MS = 10_000;
const STALLED = 2000;

describe('soak: stalled live-view streams', () => {
  it('2,000 clients that open /debug/api/stream and never read: reconciles within 20 % of the runs around it, /healthz p99 < 100 ms, memory back after they leave', async () => {
    const load = await startLiveViewLoad();
    const mib = (): number => Math.round(process.memoryUsage().rss / 2 ** 20);
    try {
      const before = await measureWindow(load, WINDOW_MS);
      const rssBefore = mib();
      const { streaming, refused, sockets } = await load.stall(STALLED);
      const flooded = await measureWindow(load, WINDOW_MS);
      const rssFlooded = mib();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const after = await measureWindow(load, WINDOW_MS);
      const rssAfter = mib();
      const around = (before.reconciles + after.reconciles) / 2;
      const figures = {
        stalled: STALLED,
        streaming,
        refused,
        reconcilesBefore: before.reconciles,
        reconcilesFlooded: flooded.reconciles,
        reconcilesAfter: after.reconciles,
        ratio: Number((flooded.reconciles / around).toFixed(2)),
        healthP99BeforeMs: Math.round(percentile(before.probes, 99)),
        healthP99FloodedMs: Math.round(percentile(flooded.probes, 99)),
        rssBeforeMiB: rssBefore,
        rssFloodedMiB: rssFlooded,
        rssAfterMiB: rssAfter,
      };
      recordFigures('live-view-flood', figures);
      expect(figures.ratio).toBeGreaterThanOrEqual(0.8);
      expect(figures.healthP99FloodedMs).toBeLessThan(100);
      expect(rssFlooded - rssBefore).toBeLessThan(100);
    } finally {
      await load.stop();
    }
  });
});
