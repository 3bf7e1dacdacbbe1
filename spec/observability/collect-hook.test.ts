import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { onCollect } from '../../lib/observability/collect-hook.js';

describe('onCollect', () => {
  it('hands counts kept in fields to the metric whenever it is read, before its own collect', async () => {
    const registry = new Registry();
    const order: string[] = [];
    const counter = new Counter({
      name: 'things_total',
      help: 'things',
      labelNames: ['who'],
      registers: [registry],
      collect() {
        order.push('own collect');
      },
    });
    let pendingA = 0;
    let pendingB = 0;
    onCollect(counter, () => {
      order.push('a');
      counter.inc({ who: 'a' }, pendingA);
      pendingA = 0;
    });
    const removeB = onCollect(counter, () => {
      order.push('b');
      counter.inc({ who: 'b' }, pendingB);
      pendingB = 0;
    });
    pendingA += 3;
    pendingB += 1;
    const text = await registry.metrics();
    expect(text).toContain('things_total{who="a"} 3');
    expect(text).toContain('things_total{who="b"} 1');
    expect(order).toEqual(['a', 'b', 'own collect']);

    pendingA += 2;
    removeB();
    pendingB += 5;
    const values = (await counter.get()).values.map((v) => [v.labels.who, v.value]);
    expect(values).toEqual([
      ['a', 5],
      ['b', 1],
    ]);
  });
});
