import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/kube/api-error.js';
import { EventRecorder, type EventClient } from '../../lib/observability/event-recorder.js';

/** Keeps Events in a map, as the API server would, and counts the writes. */
class MemoryEvents implements EventClient {
  readonly events = new Map<string, any>();
  creates = 0;
  patches = 0;
  async create<T extends KubernetesObject>(obj: T): Promise<T> {
    this.creates += 1;
    this.events.set(`${obj.metadata?.namespace}/${obj.metadata?.name}`, structuredClone(obj));
    return obj;
  }
  async patch<T extends KubernetesObject>(ref: { namespace?: string; name: string }, body: any): Promise<T> {
    this.patches += 1;
    const key = `${ref.namespace}/${ref.name}`;
    const existing = this.events.get(key);
    if (existing === undefined) throw new ApiError({ code: 404, reason: 'NotFound', message: 'gone' });
    Object.assign(existing, body);
    return existing as T;
  }
}

const website = {
  apiVersion: 'demo.reconcilekit.io/v1',
  kind: 'Website',
  metadata: { name: 'blog', namespace: 'team-a', uid: 'uid-1', resourceVersion: '5' },
};

describe('EventRecorder', () => {
  it('creates a core/v1 Event pointing at the object', async () => {
    const client = new MemoryEvents();
    const recorder = new EventRecorder({
      client,
      component: 'website-operator',
      now: () => Date.parse('2026-01-01T00:00:00Z'),
    });
    recorder.record(website, { type: 'Warning', reason: 'ReconcileError', message: 'boom' });
    await recorder.flush();
    const [event] = [...client.events.values()];
    expect(event).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace: 'team-a' },
      involvedObject: { kind: 'Website', name: 'blog', namespace: 'team-a', uid: 'uid-1' },
      type: 'Warning',
      reason: 'ReconcileError',
      message: 'boom',
      source: { component: 'website-operator' },
      reportingComponent: 'website-operator',
      count: 1,
      firstTimestamp: '2026-01-01T00:00:00Z',
    });
    expect(event.metadata.name).toMatch(/^blog\./);
  });

  it('aggregates repeats into one Event with a growing count', async () => {
    const client = new MemoryEvents();
    let now = Date.parse('2026-01-01T00:00:00Z');
    const recorder = new EventRecorder({ client, component: 'op', now: () => now });
    for (let i = 0; i < 5; i++) {
      recorder.record(website, { type: 'Warning', reason: 'ReconcileError', message: 'boom' });
      now += 1000;
    }
    await recorder.flush();
    expect(client.events.size).toBe(1);
    expect(client.creates).toBe(1);
    expect(client.patches).toBe(4);
    const [event] = [...client.events.values()];
    expect(event.count).toBe(5);
    expect(event.lastTimestamp).toBe('2026-01-01T00:00:04Z');
  });

  it('keeps different reasons and messages apart, and starts a new series after the window', async () => {
    const client = new MemoryEvents();
    let now = 0;
    const recorder = new EventRecorder({
      client,
      component: 'op',
      aggregationWindowMs: 10_000,
      now: () => now,
    });
    recorder.record(website, { type: 'Warning', reason: 'A', message: 'x' });
    recorder.record(website, { type: 'Warning', reason: 'B', message: 'x' });
    recorder.record(website, { type: 'Warning', reason: 'A', message: 'y' });
    await recorder.flush();
    expect(client.events.size).toBe(3);
    now = 20_000;
    recorder.record(website, { type: 'Warning', reason: 'A', message: 'x' });
    await recorder.flush();
    expect(client.events.size).toBe(4);
  });

  it('starts a new Event when the aggregated one was deleted, and never throws', async () => {
    const client = new MemoryEvents();
    const recorder = new EventRecorder({ client, component: 'op' });
    recorder.record(website, { type: 'Warning', reason: 'A', message: 'x' });
    await recorder.flush();
    client.events.clear();
    recorder.record(website, { type: 'Warning', reason: 'A', message: 'x' });
    await recorder.flush();
    expect(client.events.size).toBe(1);
    expect([...client.events.values()][0].count).toBe(1);

    const failing: EventClient = {
      create: () => Promise.reject(new Error('api down')),
      patch: () => Promise.reject(new Error('api down')),
    };
    const quiet = new EventRecorder({ client: failing, component: 'op' });
    quiet.record(website, { type: 'Warning', reason: 'A', message: 'x' });
    await expect(quiet.flush()).resolves.toBeUndefined();
  });

  it('cuts very long messages', async () => {
    const client = new MemoryEvents();
    const recorder = new EventRecorder({ client, component: 'op' });
    recorder.record(website, { type: 'Warning', reason: 'A', message: 'x'.repeat(5000) });
    await recorder.flush();
    expect([...client.events.values()][0].message).toHaveLength(1024);
  });
});
