// The watch events of a controller's own writes queue at low priority: a pass that writes an annotation on
// its object, or creates the object's child, does not put that object back ahead of objects not yet
// reconciled once (the initial list). A user's change still runs first (priority-queue.test.ts).
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildKubeconfig } from '../../lib/apiserver/index.js';
import { Controller, clientKey, createLogger, type ReconcileContext } from '../../lib/index.js';
import { REAL_BACKEND } from '../real/real-backend.js';
import { RecordingProxy } from '../reliability/support/recording-proxy.js';
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

const OBJECTS = 80;
// Long enough that the watch event of a pass's write arrives while the next pass runs.
const PASS_MS = 5;
const MARK = 'spec.reconcilekit.io/seen';
/** How long the answer to a create is held back where a spec wants its watch event to come first. */
const ANSWER_DELAY_MS = 30;

/** Creates the ConfigMap named like `owner`, owned by it, unless the context's client finds it. */
async function createChildOnce(ctx: ReconcileContext, owner: Widget): Promise<void> {
  const name = owner.metadata?.name ?? '';
  const client = ctx.get(clientKey);
  if (client === undefined) throw new Error('no client in the context');
  const child = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default', name };
  if ((await client.get(child).catch(() => undefined)) !== undefined) return;
  await client.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'default',
      ownerReferences: [
        {
          apiVersion: WIDGET.apiVersion,
          kind: WIDGET.kind,
          name,
          uid: owner.metadata?.uid ?? '',
          controller: true,
        },
      ],
    },
    data: { from: name },
  });
}

describe("own writes' watch events queue at low priority (embedded API server)", () => {
  let h: Harness;
  const controllers: Controller<Widget>[] = [];
  beforeEach(async () => {
    h = await startHarness();
    for (let i = 0; i < OBJECTS; i++) await h.client.create(widget(`w${String(i)}`));
  });
  afterEach(async () => {
    await Promise.all(controllers.splice(0).map((c) => c.stop()));
    await h.close();
  });

  /** How many different objects the first OBJECTS passes reconciled. */
  const distinctAmongFirst = (order: string[]): number => new Set(order.slice(0, OBJECTS)).size;

  it('an annotation the pass writes on its own object (a fresh metadata change) waits behind the list', async () => {
    const order: string[] = [];
    const controller = new Controller<Widget>({
      name: 'own-annotation',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      logger: createLogger({ silent: true }),
      workers: 1,
      reconciler: async (ctx, req) => {
        order.push(req.key);
        if (req.object.metadata?.annotations?.[MARK] === undefined) {
          await ctx
            .get(clientKey)
            ?.patch(
              ref(req.object.metadata?.name ?? ''),
              { metadata: { annotations: { [MARK]: '1' } } },
              'merge',
            );
        }
        await sleep(PASS_MS);
      },
    });
    controllers.push(controller);
    await controller.start();
    await eventually(() => order.length >= 2 * OBJECTS, 30_000, 'two passes per object');
    // Every object had its first pass before any object's second: the write's event came at low priority,
    // behind the keys of the initial list (at the default priority it runs next, about every other pass).
    expect(distinctAmongFirst(order)).toBe(OBJECTS);
    await sleep(100);
    expect(order).toHaveLength(2 * OBJECTS);
  }, 60_000);

  it('a child the pass creates (owned) does not put its owner back ahead of the list', async () => {
    const order: string[] = [];
    const controller = new Controller<Widget>({
      name: 'own-child',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      owns: [{ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' }],
      logger: createLogger({ silent: true }),
      workers: 1,
      reconciler: async (ctx, req) => {
        order.push(req.key);
        const name = req.object.metadata?.name ?? '';
        const child = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          plural: 'configmaps',
          namespace: 'default',
          name,
        };
        const client = ctx.get(clientKey);
        if (client === undefined) throw new Error('no client in the context');
        const found = await client.get(child).catch(() => undefined);
        if (found === undefined) {
          await client.create({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name,
              namespace: 'default',
              ownerReferences: [
                {
                  apiVersion: WIDGET.apiVersion,
                  kind: WIDGET.kind,
                  name,
                  uid: req.object.metadata?.uid ?? '',
                  controller: true,
                },
              ],
            },
            data: { from: name },
          });
        }
        await sleep(PASS_MS);
      },
    });
    controllers.push(controller);
    await controller.start();
    await eventually(() => order.length >= 2 * OBJECTS, 30_000, 'two passes per object');
    expect(distinctAmongFirst(order)).toBe(OBJECTS);
  }, 60_000);

  it("another client's change to an object still runs ahead of the list", async () => {
    const order: { key: string; n: unknown }[] = [];
    const controller = new Controller<Widget>({
      name: 'others',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      logger: createLogger({ silent: true }),
      workers: 1,
      reconciler: async (ctx, req) => {
        order.push({ key: req.key, n: req.object.spec?.n });
        if (req.object.metadata?.annotations?.[MARK] === undefined) {
          await ctx
            .get(clientKey)
            ?.patch(
              ref(req.object.metadata?.name ?? ''),
              { metadata: { annotations: { [MARK]: '1' } } },
              'merge',
            );
        }
        await sleep(PASS_MS);
      },
    });
    controllers.push(controller);
    await controller.start();
    await eventually(() => order.length >= 10, 10_000, '10 passes');
    const target = `w${String(OBJECTS - 1)}`;
    await h.client.patch<Widget>(ref(target), { spec: { n: 1 } }, 'merge');
    const wroteAt = order.length;
    await eventually(
      () => order.some((o) => o.key === `default/${target}` && o.n === 1),
      30_000,
      'the change',
    );
    const at = order.findIndex((o) => o.key === `default/${target}` && o.n === 1);
    expect(at - wroteAt).toBeLessThan(OBJECTS / 2);
  }, 60_000);
  // The watch may deliver a write before the client has its answer (another connection): the event is
  // taken as the controller's own until the answer shows whether it was.
  it.skipIf(REAL_BACKEND)(
    "a child whose watch event comes before the create's answer still waits behind the list",
    async () => {
      // Answers to creates of ConfigMaps are held back; their watch events are not.
      const proxy = new RecordingProxy(h.server.url, (call) =>
        call.verb === 'create' && call.resource === 'configmaps' ? ANSWER_DELAY_MS : 0,
      );
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(buildKubeconfig(await proxy.start()));
      const order: string[] = [];
      const controller = new Controller<Widget>({
        name: 'own-child-early-event',
        kubeConfig,
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
        owns: [{ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' }],
        logger: createLogger({ silent: true }),
        workers: 1,
        reconciler: async (ctx, req) => {
          order.push(req.key);
          await createChildOnce(ctx, req.object);
        },
      });
      controllers.push(controller);
      try {
        await controller.start();
        await eventually(() => order.length >= 2 * OBJECTS, 30_000, 'two passes per object');
        // Without the wait for the answer, each child's add came at the default priority and its owner
        // ran next: about every other pass a second one.
        expect(distinctAmongFirst(order)).toBe(OBJECTS);
      } finally {
        await controller.stop();
        await proxy.close();
      }
    },
    60_000,
  );

  it.skipIf(REAL_BACKEND)(
    "another client's change that comes while the controller's write is unanswered still runs first",
    async () => {
      // The answer to the first patch of a Widget is held back; the server has applied it already.
      let first = true;
      const proxy = new RecordingProxy(h.server.url, (call) => {
        if (call.verb !== 'patch' || !call.resource.startsWith('widgets') || !first) return 0;
        first = false;
        return ANSWER_DELAY_MS * 10;
      });
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(buildKubeconfig(await proxy.start()));
      const order: { key: string; n: unknown }[] = [];
      const controller = new Controller<Widget>({
        name: 'others-while-writing',
        kubeConfig,
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
        logger: createLogger({ silent: true }),
        workers: 1,
        reconciler: async (ctx, req) => {
          order.push({ key: req.key, n: req.object.spec?.n });
          const name = req.object.metadata?.name ?? '';
          if (req.object.metadata?.annotations?.[MARK] !== undefined) return;
          const mark = ctx
            .get(clientKey)
            ?.patch(ref(name), { metadata: { annotations: { [MARK]: '1' } } }, 'merge');
          if (order.length === 1) {
            // While the mark's answer is held, another client changes the same object's spec: its event
            // comes while a write of ours to the object is unanswered.
            await sleep(ANSWER_DELAY_MS);
            await h.client.patch<Widget>(ref(name), { spec: { n: 1 } }, 'merge');
          }
          await mark;
        },
      });
      controllers.push(controller);
      try {
        await controller.start();
        await eventually(() => order.some((o) => o.n === 1), 30_000, 'the change');
        const firstKey = order[0]?.key;
        const at = order.findIndex((o) => o.key === firstKey && o.n === 1);
        // At low priority (taken for the controller's own write) it would run after every listed object.
        expect(at).toBeLessThan(OBJECTS / 2);
      } finally {
        await controller.stop();
        await proxy.close();
      }
    },
    60_000,
  );
});
