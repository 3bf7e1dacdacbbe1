import type { KubernetesObject } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REAL_BACKEND } from '../real/real-backend.js';
import { Framework } from '../../lib/crud/framework.js';
import type { FrameworkConfig } from '../../lib/crud/framework-config.js';
import { getCondition, setCondition, type StatusCondition } from '../../lib/status/status-conditions.js';
import type { Logger } from '../../lib/observability/logger.js';
import type { ReconcileContext } from '../../lib/context/reconcile-context.js';
import type { Resource } from '../../lib/crud/resource/resource.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import {
  eventually,
  ref,
  RecordingResource,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from './harness.js';

type WithStatus = Widget & { status?: { conditions?: StatusCondition[] } };

class BrokenThingError extends Error {
  override readonly name = 'BrokenThingError';
}

/** A logger keeping warn/error lines (the framework must never turn a failed condition write into noise). */
function capturingLogger(lines: { level: string; message: string }[]): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => lines.push({ level: 'warn', message }),
    error: (message) => lines.push({ level: 'error', message }),
    child: () => logger,
  };
  return logger;
}

describe('Framework error condition (config.errorCondition)', () => {
  let h: Harness;
  let framework: Framework<Widget> | undefined;
  const lines: { level: string; message: string }[] = [];
  let statusPatches = 0;

  beforeEach(async () => {
    lines.length = 0;
    statusPatches = 0;
    h = await startHarness();
  });
  afterEach(async () => {
    await framework?.stop();
    framework = undefined;
    await h.close();
  });

  function start(resources: Resource<Widget>[], extra: Partial<FrameworkConfig<Widget>> = {}): Promise<void> {
    framework = new Framework<Widget>({
      name: 'widgets',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      resourceSets: [new ResourceSet<Widget>({ resources })],
      logger: capturingLogger(lines),
      finalizer: false,
      ...extra,
    });
    // Count the framework's own status writes (identical failures must not write again).
    const client = framework.client;
    if (client !== undefined) {
      const patch = client.patch.bind(client);
      client.patch = (...args: Parameters<typeof patch>) => {
        if (args[3]?.subresource === 'status') statusPatches += 1;
        return patch(...args);
      };
    }
    return framework.start();
  }

  async function ready(name: string): Promise<StatusCondition | undefined> {
    const obj = await h.client.get<WithStatus>(ref(name));
    return getCondition(obj.status?.conditions, 'Ready');
  }

  it('sets Ready=False with the error, writes it once for repeated failures, removes it after a success', async () => {
    let broken = true;
    const recorder = new RecordingResource();
    recorder.onCreate = () => {
      if (broken) throw new BrokenThingError('the thing is broken');
    };
    const created = await h.client.create(widget('a', {}, { size: 1 }));
    await start([recorder]);

    const cond = await eventually(() => ready('a'), 5_000, 'error condition');
    expect(cond).toMatchObject({
      type: 'Ready',
      status: 'False',
      reason: 'BrokenThingError',
      message: 'resource "recorder" step ensureCreated: the thing is broken',
      observedGeneration: created.metadata?.generation,
    });
    expect(Date.parse(cond.lastTransitionTime)).not.toBeNaN();

    // Identical failures do not write again: no status patch, the resourceVersion stays put.
    const version = (await h.client.get(ref('a'))).metadata?.resourceVersion;
    const attempts = recorder.count('create', 'a');
    await eventually(() => recorder.count('create', 'a') >= attempts + 3, 5_000, 'three more failing passes');
    await new Promise((r) => setTimeout(r, 100));
    expect(statusPatches).toBe(1);
    expect((await h.client.get(ref('a'))).metadata?.resourceVersion).toBe(version);

    broken = false;
    await h.client.patch(ref('a'), { spec: { size: 2 } }, 'merge');
    await eventually(async () => (await ready('a')) === undefined, 5_000, 'condition removed after success');
    expect(statusPatches).toBe(2);
    expect(lines.filter((l) => l.message.includes('error condition'))).toEqual([]);
  });

  // Skipped on the real backend (`make test-real`): fault injection needs the embedded server.

  it.skipIf(REAL_BACKEND)(
    'leaves no False behind when the success comes while the failure write is still in flight',
    async () => {
      const recorder = new RecordingResource();
      let failures = 0;
      recorder.onCreate = () => {
        if (failures++ === 0) throw new BrokenThingError('only once');
      };
      const created = await h.client.create(widget('quick'));
      // The failure's status write is held up; the retry (5 ms later) succeeds meanwhile. Fed through
      // updateFunc (no watch), so no watch event of our own write would run another pass to repair it.
      h.server.faults.inject({ verb: 'patch', resource: 'widgets', delayMs: 300, times: 1 });
      await start([recorder], { resource: undefined });
      framework?.updateFunc(undefined, created);
      await eventually(() => recorder.count('create', 'quick') >= 2, 5_000, 'failure then success');
      await new Promise((r) => setTimeout(r, 600));
      await framework?.stop();
      // Either the queued write was dropped, or it landed and was cleared after it: no False either way.
      expect(await ready('quick')).toBeUndefined();
    },
  );

  it("leaves the user's own Ready=True alone on success (the status resource owns Ready then)", async () => {
    let broken = true;
    const status: Resource<Widget> = {
      name: 'status',
      async ensureCreated(ctx: ReconcileContext, obj: Widget) {
        if (broken) throw new BrokenThingError('not yet');
        const current = await h.client.get<WithStatus>(ref(obj.metadata?.name ?? ''), { signal: ctx.signal });
        const conditions = setCondition(current.status?.conditions, {
          type: 'Ready',
          status: 'True',
          reason: 'Reconciled',
          message: 'all good',
        });
        await h.client.patch(ref(obj.metadata?.name ?? ''), { status: { conditions } }, 'merge', {
          subresource: 'status',
          signal: ctx.signal,
        });
      },
      async ensureDeleted() {},
    };
    await h.client.create(widget('b'));
    await start([status]);
    await eventually(async () => (await ready('b'))?.status === 'False', 5_000, 'error condition');
    broken = false;
    await h.client.patch(ref('b'), { spec: { fixed: true } }, 'merge');
    await eventually(
      async () => (await ready('b'))?.status === 'True',
      5_000,
      'Ready=True from the resource',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await ready('b')).toMatchObject({ status: 'True', reason: 'Reconciled' });
  });

  it('writes a ReconcileTimeout condition for a reconcile aborted by reconcileTimeoutMs', async () => {
    const recorder = new RecordingResource();
    recorder.onCreate = (ctx) =>
      new Promise<void>((_, reject) => {
        ctx.signal.addEventListener('abort', () => {
          reject(new Error('aborted'));
        });
      });
    await h.client.create(widget('slow'));
    await start([recorder], { reconcileTimeoutMs: 150 });
    const cond = await eventually(() => ready('slow'), 5_000, 'timeout condition');
    expect(cond).toMatchObject({ status: 'False', reason: 'ReconcileTimeout' });
    expect(cond.message).toContain('150 ms');
  });

  it('uses the configured type, and writes nothing with errorCondition: false', async () => {
    const recorder = new RecordingResource();
    recorder.onCreate = () => {
      throw new Error('boom');
    };
    await h.client.create(widget('typed'));
    await start([recorder], { errorCondition: { type: 'Reconciled' } });
    const obj = await eventually(async () => {
      const o = await h.client.get<WithStatus>(ref('typed'));
      return getCondition(o.status?.conditions, 'Reconciled') === undefined ? undefined : o;
    });
    expect(getCondition(obj.status?.conditions, 'Reconciled')).toMatchObject({
      status: 'False',
      reason: 'ReconcileError',
      message: 'resource "recorder" step ensureCreated: boom',
    });
    expect(getCondition(obj.status?.conditions, 'Ready')).toBeUndefined();
    await framework?.stop();

    await h.client.create(widget('off'));
    await start([recorder], { errorCondition: false });
    await eventually(() => recorder.count('create', 'off') >= 3, 5_000, 'failing passes');
    const off = await h.client.get<WithStatus>(ref('off'));
    expect(off.status?.conditions ?? []).toEqual([]);
  });

  it('skips kinds without a status subresource, quietly (ConfigMaps)', async () => {
    const seen: string[] = [];
    const failing: Resource = {
      name: 'failing',
      ensureCreated(_ctx, obj) {
        seen.push(obj.metadata?.name ?? '');
        throw new Error('config is bad');
      },
      async ensureDeleted() {},
    };
    const cm = await h.client.create<KubernetesObject & { data: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', namespace: 'default' },
      data: { a: '1' },
    });
    const fw = new Framework({
      name: 'configmaps',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' },
      resourceSets: [new ResourceSet<KubernetesObject>({ resources: [failing] })],
      logger: capturingLogger(lines),
      finalizer: false,
    });
    try {
      await fw.start();
      await eventually(() => seen.filter((n) => n === 'cm').length >= 3, 5_000, 'failing passes');
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await fw.stop();
    }
    const after = await h.client.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      name: 'cm',
    });
    expect(after.metadata?.resourceVersion).toBe(cm.metadata?.resourceVersion);
    expect(lines.filter((l) => l.message.includes('error condition'))).toEqual([]);
  });
});
