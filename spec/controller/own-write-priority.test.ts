// The watch events of a controller's own writes queue at low priority: a pass that writes an annotation on
// its object, or creates the object's child, does not put that object back ahead of objects not yet
// reconciled once (the initial list). A user's change still runs first (priority-queue.test.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Controller, clientKey, createLogger } from '../../lib/index.js';
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
});
