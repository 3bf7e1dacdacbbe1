// The engine's priority queue on the embedded API server: a change a user makes while the initial list is
// still being worked off runs ahead of it (queueOrder 'priority', the default), and behind it with 'fifo';
// the live view shows each waiting key's priority.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Controller,
  createLogger,
  type ControllerConfig,
  type DebugControllerState,
  type WorkQueueOrder,
} from '../../lib/index.js';
import {
  eventually,
  ref,
  sleep,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from './controller-support.js';

const OBJECTS = 600;
const PASS_MS = 2;

describe('priority queue in the engine (embedded API server)', () => {
  let h: Harness;
  const controllers: Controller<Widget>[] = [];
  beforeEach(async () => {
    h = await startHarness();
    for (let i = 0; i < OBJECTS; i++) await h.client.create(widget(`w${i}`, {}, { n: 0 }));
  });
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    await h.close();
  });

  /**
   * Starts a one-worker controller over the pre-created objects, patches one object once 50 initial passes
   * ran, and returns how many initial-list passes ran between the write and the changed object's pass.
   */
  async function passesBeforeTheChange(queueOrder: WorkQueueOrder | undefined): Promise<{
    between: number;
    controller: Controller<Widget>;
  }> {
    const seen: { key: string; n: unknown }[] = [];
    const config: ControllerConfig<Widget> = {
      name: `order-${queueOrder ?? 'default'}`,
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      reconciler: async (_ctx, req) => {
        seen.push({ key: req.key, n: (req.object.spec as { n?: unknown } | undefined)?.n });
        await sleep(PASS_MS);
      },
      logger: createLogger({ silent: true }),
      workers: 1,
    };
    if (queueOrder !== undefined) config.queueOrder = queueOrder;
    const controller = new Controller<Widget>(config);
    controllers.push(controller);
    await controller.start();
    await eventually(() => seen.length >= 50, 10_000, '50 initial passes');
    // The target is near the end of the list: in FIFO order it would run last.
    const target = `w${OBJECTS - 1}`;
    await h.client.patch<Widget>(ref(target), { spec: { n: 1 } }, 'merge');
    const wroteAt = seen.length;
    await eventually(
      () => seen.some((s) => s.key === `default/${target}` && s.n === 1),
      30_000,
      'the changed object reconciled',
    );
    const at = seen.findIndex((s) => s.key === `default/${target}` && s.n === 1);
    return { between: at - wroteAt, controller };
  }

  it('runs a user change ahead of the initial list; the FIFO runs it after the list', async () => {
    const priority = await passesBeforeTheChange(undefined);
    // The watch event arrives within a few passes; then one of the next two hand-outs is the change.
    expect(priority.between).toBeLessThan(40);
    await priority.controller.stop();
    const fifo = await passesBeforeTheChange('fifo');
    // Behind everything still queued when it was written (≥ OBJECTS − 50 − the passes during the write).
    expect(fifo.between).toBeGreaterThan(OBJECTS - 200);
  }, 120_000);

  it('shows waiting keys with their priority, and the depth by priority, in the live view', async () => {
    // The worker holds its pass while the spec looks, so the change waits in the queue.
    let hold = false;
    const controller = new Controller<Widget>({
      name: 'live',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      reconciler: async () => {
        await sleep(20);
        while (hold) await sleep(5);
      },
      logger: createLogger({ silent: true }),
      workers: 1,
      debugPage: true,
      healthServer: { host: '127.0.0.1', port: 0 },
    });
    controllers.push(controller);
    await controller.start();
    hold = true;
    await h.client.patch<Widget>(ref('w300'), { spec: { n: 2 } }, 'merge');
    const url = `${controller.healthUrl ?? ''}/debug/api/controllers`;
    let state: DebugControllerState | undefined;
    await eventually(
      async () => {
        const body = (await (await fetch(url)).json()) as { controllers: DebugControllerState[] };
        state = body.controllers[0];
        return (state?.queued ?? []).some((q) => q.key === 'default/w300');
      },
      5_000,
      'the change queued',
    );
    if (state === undefined) throw new Error('no controller in the live view');
    expect(state.queueOrder).toBe('priority');
    const low = state.depthByPriority?.find((d) => d.priority === -100);
    expect(low?.depth).toBeGreaterThan(100);
    const queued = state.queued ?? [];
    // The next to run first: the change, then the initial list.
    expect(queued[0]).toMatchObject({
      key: 'default/w300',
      priority: 0,
      trigger: { reason: 'watch', event: 'update' },
    });
    expect(queued.length).toBeGreaterThan(100);
    expect(queued.slice(1).every((q) => q.priority === -100)).toBe(true);
    hold = false;
  }, 60_000);
});
