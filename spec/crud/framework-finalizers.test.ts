import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finalizersKept, reconciliationCanceled } from '../../lib/context/flags.js';
import { Framework } from '../../lib/crud/framework.js';
import { createLogger } from '../../lib/observability/logger.js';
import { ExponentialRateLimiter } from '../../lib/queue/rate-limiter.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import {
  eventually,
  RecordingResource,
  ref,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from './harness.js';

async function gone(h: Harness, name: string): Promise<boolean> {
  try {
    await h.client.get(ref(name));
    return false;
  } catch {
    return true;
  }
}

async function events(h: Harness, name: string): Promise<any[]> {
  const list = await h.client.list({
    apiVersion: 'v1',
    kind: 'Event',
    plural: 'events',
    namespace: 'default',
  });
  return list.items.filter((e: any) => e.involvedObject?.name === name);
}

describe('Framework finalizers on the embedded API server', () => {
  let h: Harness;
  const frameworks: Framework<Widget>[] = [];
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await Promise.all(frameworks.splice(0).map((f) => f.stop()));
    await h.close();
  });

  function start(
    name: string,
    recorder: RecordingResource,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const fw = new Framework<Widget>({
      name,
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
      rateLimiter: new ExponentialRateLimiter({ baseDelayMs: 20, factor: 2, maxDelayMs: 500 }),
      logger: createLogger({ silent: true }),
      ...extra,
    });
    frameworks.push(fw);
    return fw.start();
  }

  it('retries a failing deletion with growing delays, keeps the finalizer meanwhile, then removes it', async () => {
    const recorder = new RecordingResource();
    const attempts: number[] = [];
    recorder.onDelete = () => {
      attempts.push(performance.now());
      if (attempts.length <= 3) throw new Error('cloud API unavailable');
    };
    await start('cleaner', recorder);
    await h.client.create(widget('doomed'));
    await eventually(() => recorder.count('create', 'doomed') === 1);
    await h.client.delete(ref('doomed'));
    await eventually(() => attempts.length === 2);
    const during = await h.client.get<Widget>(ref('doomed'));
    expect(during.metadata?.finalizers).toContain('reconcilekit.io/cleaner');
    await eventually(() => gone(h, 'doomed'), 5_000, 'object removed after the deletion succeeded');
    expect(attempts).toHaveLength(4);
    const gaps = attempts.slice(1).map((t, i) => t - attempts[i]!);
    // Growing: each gap at least the rate limiter's delay for that attempt (20, 40, 80 ms). Lower bounds
    // only: a loaded machine stretches gaps, it never shortens them.
    expect(gaps[0]!).toBeGreaterThanOrEqual(18);
    expect(gaps[1]!).toBeGreaterThanOrEqual(38);
    expect(gaps[2]!).toBeGreaterThanOrEqual(78);
    // The three failures became one aggregated Warning Event.
    const warnings = await eventually(async () => {
      const list = (await events(h, 'doomed')).filter((e) => e.type === 'Warning');
      return list.length === 1 && list[0].count === 3 ? list : undefined;
    });
    expect(warnings[0]).toMatchObject({
      reason: 'ReconcileError',
      message: 'resource "recorder" step ensureDeleted: cloud API unavailable',
      source: { component: 'cleaner' },
      involvedObject: { kind: 'Widget', name: 'doomed' },
    });
  });

  it('keeps reconciling other objects while one keeps failing', async () => {
    const recorder = new RecordingResource();
    recorder.onCreate = (_ctx, obj) => {
      if (obj.spec?.broken === true) throw new TypeError('spec.size must be a number');
    };
    await start('isolation', recorder);
    await h.client.create(widget('broken', {}, { broken: true }));
    for (let i = 0; i < 5; i++) await h.client.create(widget(`fine-${i}`));
    await eventually(() => [0, 1, 2, 3, 4].every((i) => recorder.count('create', `fine-${i}`) >= 1));
    await eventually(() => recorder.count('create', 'broken') >= 3, 5_000, 'broken object retried');
    const warning = await eventually(
      async () =>
        (await events(h, 'broken')).find((e) => e.reason === 'TypeError') as { message: string } | undefined,
    );
    // The Event names the resource and step that failed, then the error's own message.
    expect(warning.message).toBe('resource "recorder" step ensureCreated: spec.size must be a number');
    expect(await frameworks[0]!.metrics.metrics()).toMatch(
      /controller_runtime_reconcile_errors_total\{controller="isolation"\} [3-9]/,
    );
  });

  it('two frameworks with different names each add and remove their own finalizer, one deletion each', async () => {
    const a = new RecordingResource();
    const b = new RecordingResource();
    let bFailures = 0;
    b.onDelete = () => {
      if (bFailures++ === 0) throw new Error('first try fails');
    };
    await start('alpha', a);
    await start('beta', b);
    await h.client.create(widget('shared', { finalizers: ['example.com/keep'] }));
    await eventually(async () => {
      const o = await h.client.get<Widget>(ref('shared'));
      return o.metadata?.finalizers?.length === 3;
    });
    const obj = await h.client.get<Widget>(ref('shared'));
    expect(new Set(obj.metadata?.finalizers)).toEqual(
      new Set(['example.com/keep', 'reconcilekit.io/alpha', 'reconcilekit.io/beta']),
    );
    await h.client.delete(ref('shared'));
    await eventually(async () => {
      const o = await h.client.get<Widget>(ref('shared'));
      return o.metadata?.finalizers?.length === 1;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(a.count('delete')).toBe(1);
    expect(b.count('delete')).toBe(2);
    expect((await h.client.get<Widget>(ref('shared'))).metadata?.finalizers).toEqual(['example.com/keep']);
  });

  it('three same-name frameworks: only the one whose set handles the object touches it', async () => {
    const recorders = [new RecordingResource(), new RecordingResource(), new RecordingResource()];
    for (const [i, recorder] of recorders.entries()) {
      const fw = new Framework<Widget>({
        name: 'versioned',
        kubeConfig: h.kubeConfig,
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
        resourceSets: [
          new ResourceSet<Widget>({
            resources: [recorder],
            handles: (o) => o.metadata?.labels?.version === String(i + 1),
          }),
        ],
        logger: createLogger({ silent: true }),
      });
      frameworks.push(fw);
      await fw.start();
    }
    await h.client.create(widget('v2', { labels: { version: '2' } }));
    await eventually(() => recorders[1]!.count('create') >= 1);
    const obj = await h.client.get<Widget>(ref('v2'));
    expect(obj.metadata?.finalizers).toEqual(['reconcilekit.io/versioned']);
    await h.client.delete(ref('v2'));
    await eventually(() => gone(h, 'v2'));
    await new Promise((r) => setTimeout(r, 100));
    expect(recorders.map((r) => r.count('delete'))).toEqual([0, 1, 0]);
    expect(recorders[0]!.count('create') + recorders[2]!.count('create')).toBe(0);
  });

  it.each([
    ['finalizersKept', finalizersKept],
    ['reconciliationCanceled', reconciliationCanceled],
  ])('keeps the finalizer and replays the deletion when a resource sets %s', async (_name, flag) => {
    const recorder = new RecordingResource();
    recorder.onDelete = (ctx) => {
      if (recorder.count('delete') < 3) flag.set(ctx);
    };
    await start('keeper', recorder);
    await h.client.create(widget('kept'));
    await eventually(() => recorder.count('create') === 1);
    await h.client.delete(ref('kept'));
    await eventually(() => recorder.count('delete') === 2);
    expect((await h.client.get<Widget>(ref('kept'))).metadata?.finalizers).toEqual([
      'reconcilekit.io/keeper',
    ]);
    await eventually(() => gone(h, 'kept'), 5_000, 'removed once the flag is no longer set');
    expect(recorder.count('delete')).toBe(3);
    expect(await frameworks[0]!.metrics.metrics()).toMatch(
      /controller_runtime_reconcile_total\{controller="keeper",result="requeue"\} 2/,
    );
  });

  it('keeps the finalizer of a paused object being deleted until it is unpaused', async () => {
    const recorder = new RecordingResource();
    await start('pauser', recorder);
    await h.client.create(widget('held'));
    await eventually(() => recorder.count('create') === 1);
    await h.client.patch(
      ref('held'),
      { metadata: { annotations: { 'reconcilekit.io/paused': 'true' } } },
      'merge',
    );
    await h.client.patch(ref('held'), { spec: { changed: true } }, 'merge');
    await h.client.delete(ref('held'));
    await new Promise((r) => setTimeout(r, 200));
    expect(recorder.count('create')).toBe(1);
    expect(recorder.count('delete')).toBe(0);
    expect((await h.client.get<Widget>(ref('held'))).metadata?.finalizers).toEqual([
      'reconcilekit.io/pauser',
    ]);
    await h.client.patch(
      ref('held'),
      { metadata: { annotations: { 'reconcilekit.io/paused': null } } },
      'merge',
    );
    await eventually(() => gone(h, 'held'));
    expect(recorder.count('delete')).toBe(1);
  });
});
