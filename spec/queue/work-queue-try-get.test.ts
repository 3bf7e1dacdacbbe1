import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../lib/queue/work-queue.js';

async function gauge(registry: Registry, name: string, queue: string): Promise<number | undefined> {
  const json = await registry.getMetricsAsJSON();
  return json.find((m) => m.name === name)?.values.find((v) => v.labels.name === queue)?.value;
}

describe('WorkQueue.tryGet', () => {
  it('hands out queued keys at once with get’s guarantees, and undefined when nothing is ready', () => {
    const q = new WorkQueue({ name: 't' });
    expect(q.tryGet()).toBeUndefined();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.tryGet()).toBe('a');
    q.add('a'); // while processing: queued again once on done, not handed out now
    expect(q.tryGet()).toBe('b');
    expect(q.tryGet()).toBeUndefined();
    q.done('a');
    expect(q.tryGet()).toBe('a');
    q.add('c');
    q.shutDown();
    expect(q.tryGet()).toBeUndefined();
  });

  it('keeps handing out queued keys while draining', async () => {
    const q = new WorkQueue({ name: 'd' });
    q.add('a');
    q.add('b');
    const drained = q.shutDownWithDrain();
    expect(q.tryGet()).toBe('a');
    q.done('a');
    expect(q.tryGet()).toBe('b');
    q.done('b');
    await drained;
    expect(q.tryGet()).toBeUndefined();
  });
});

describe('WorkQueue metrics counted in fields', () => {
  it('reports exact depth and adds at every read, and a replacement queue under the same labels starts at 0', async () => {
    const registry = new Registry();
    const first = new WorkQueue({ name: 'w', registry });
    for (const key of ['a', 'b', 'c', 'a']) first.add(key);
    expect(await gauge(registry, 'workqueue_depth', 'w')).toBe(3);
    expect(await gauge(registry, 'workqueue_adds_total', 'w')).toBe(3);
    first.tryGet();
    await first.get();
    expect(await gauge(registry, 'workqueue_depth', 'w')).toBe(1);
    first.add('z');
    first.shutDown();
    const second = new WorkQueue({ name: 'w', registry });
    expect(await gauge(registry, 'workqueue_depth', 'w')).toBe(0);
    second.add('x');
    expect(await gauge(registry, 'workqueue_depth', 'w')).toBe(1);
    expect(await gauge(registry, 'workqueue_adds_total', 'w')).toBe(5);
    second.shutDown();
  });
});
