import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { onCollect } from '../../lib/observability/collect-hook.js';
import { HistogramBuffer } from '../../lib/observability/histogram-buffer.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];

function pair(registry: Registry): { direct: Histogram<'who'>; buffered: Histogram<'who'> } {
  const make = (name: string): Histogram<'who'> =>
    new Histogram({ name, help: name, labelNames: ['who'], buckets: BUCKETS, registers: [registry] });
  return { direct: make('direct_seconds'), buffered: make('buffered_seconds') };
}

async function series(h: Histogram<'who'>): Promise<unknown[]> {
  return (await h.get()).values.map((v) => [v.metricName?.replace(/^\w+?_seconds/, ''), v.labels, v.value]);
}

describe('HistogramBuffer', () => {
  it('reads exactly like observing directly (buckets, +Inf, sum, count), at every read', async () => {
    const registry = new Registry();
    const { direct, buffered } = pair(registry);
    direct.zero({ who: 'a' });
    buffered.zero({ who: 'a' });
    const buffer = new HistogramBuffer(buffered, { who: 'a' }, BUCKETS);
    onCollect(buffered, () => {
      buffer.flush();
    });
    const values = [0, 0.001, 0.0011, 0.05, 0.1, 0.5, 1, 2, 7.5];
    for (const v of values) {
      direct.observe({ who: 'a' }, v);
      buffer.observe(v);
    }
    expect(await series(buffered)).toEqual(await series(direct));
    direct.observe({ who: 'a' }, 0.02);
    buffer.observe(0.02);
    expect(await series(buffered)).toEqual(await series(direct));
    expect(await registry.metrics()).toContain('buffered_seconds_count{who="a"} 10');
  });

  it('starts the series again after a registry reset; observations not read yet land in it', async () => {
    const registry = new Registry();
    const { buffered } = pair(registry);
    buffered.zero({ who: 'b' });
    const buffer = new HistogramBuffer(buffered, { who: 'b' }, BUCKETS);
    onCollect(buffered, () => {
      buffer.flush();
    });
    buffer.observe(0.5);
    expect(await registry.metrics()).toContain('buffered_seconds_count{who="b"} 1');
    registry.resetMetrics();
    buffer.observe(0.005);
    const text = await registry.metrics();
    expect(text).toContain('buffered_seconds_count{who="b"} 1');
    expect(text).toContain('buffered_seconds_sum{who="b"} 0.005');
    expect(text).toContain('buffered_seconds_bucket{le="0.01",who="b"} 1');
  });
});
