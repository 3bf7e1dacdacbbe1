// The pass after the operator's own status write (issue 18, step 5). The engine keeps it: a status write is
// one more watch event, and the pass it wakes is what makes a spec change that races the write safe. These
// specs pin down both halves of that decision: the racing change is never lost, and the extra pass costs no
// convergence time because it queues behind every first pass (the work queue is FIFO).
import { describe, expect, it } from 'vitest';
import { clientKey } from '../../lib/engine/context-keys.js';
import { Framework } from '../../lib/crud/framework.js';
import { createLogger } from '../../lib/observability/logger.js';
import { CRUDResource } from '../../lib/crud/resource/crud-resource.js';
import type { CRUDResourceOps } from '../../lib/crud/resource/crud-resource-ops.js';
import { Patch } from '../../lib/crud/resource/patch.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import { eventually, ref, useHarness, widget, WIDGET, type Widget } from './harness.js';

interface Observed extends Widget {
  status?: { observedGeneration?: number; size?: number };
}

/** A status resource: status.observedGeneration and status.size follow metadata.generation and spec.size. */
function statusOps(hooks: {
  seen: (name: string, size: unknown) => void;
  beforeWrite?: (name: string) => Promise<void> | void;
}): CRUDResourceOps<Observed, number | undefined, number> {
  return {
    name: 'status',
    getCurrentState: (_ctx, w) => {
      hooks.seen(w.metadata?.name ?? '', w.spec?.size);
      return w.status?.observedGeneration;
    },
    getDesiredState: (_ctx, w) => w.metadata?.generation,
    newUpdatePatch: (_ctx, _w, current, desired) =>
      desired === undefined || current === desired ? undefined : new Patch<number>().setUpdateChange(desired),
    newDeletePatch: () => undefined,
    applyCreateChange: () => undefined,
    applyDeleteChange: () => undefined,
    applyUpdateChange: async (ctx, w, generation) => {
      await hooks.beforeWrite?.(w.metadata?.name ?? '');
      const client = ctx.get(clientKey);
      if (client === undefined) throw new Error('no client in the context');
      await client.patch(
        ref(w.metadata?.name ?? ''),
        { status: { observedGeneration: generation, size: w.spec?.size } },
        'merge',
        { subresource: 'status', signal: ctx.signal },
      );
    },
  };
}

describe('the pass after the operator’s own status write', () => {
  const t = useHarness();

  function start(
    ops: CRUDResourceOps<Observed, number | undefined, number>,
    workers: number,
  ): Framework<Observed> {
    const framework = new Framework<Observed>({
      name: 'own-status-write',
      kubeConfig: t.h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, namespace: 'default' },
      resourceSets: [new ResourceSet<Observed>({ resources: [new CRUDResource({ ops })] })],
      workers,
      finalizer: false,
      leaderElection: false,
      logger: createLogger({ silent: true }),
    });
    t.stops.push(() => framework.stop());
    return framework;
  }

  it('never loses a spec change that lands while the pass is writing status', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let held = false;
    const sizes: unknown[] = [];
    const framework = start(
      statusOps({
        seen: (name, size) => {
          if (name === 'race') sizes.push(size);
        },
        beforeWrite: async (name) => {
          if (name !== 'race' || held) return;
          held = true;
          await gate;
        },
      }),
      1,
    );
    await framework.start();
    await t.h.client.create(widget('race', {}, { size: 1 }));
    await eventually(() => held, 10_000, 'the first pass to reach its status write');
    // The spec changes between the pass's read (size 1, generation 1) and its write: the write lands on the
    // new version, so the object the watch then delivers carries both the change and the operator's write.
    const changed = await t.h.client.patch<Observed>(ref('race'), { spec: { size: 2 } }, 'merge');
    expect(changed.metadata?.generation).toBe(2);
    release();
    const done = await eventually(
      async () => {
        const o = await t.h.client.get<Observed>(ref('race'));
        return o.status?.observedGeneration === 2 ? o : undefined;
      },
      10_000,
      'observedGeneration 2',
    );
    expect(done.status?.size).toBe(2);
    expect(sizes[0]).toBe(1);
    expect(sizes).toContain(2);
  });

  it('runs the pass its own write wakes only after every object’s first pass (no convergence time lost)', async () => {
    const n = 30;
    for (let i = 0; i < n; i++)
      await t.h.client.create(widget(`w${String(i).padStart(2, '0')}`, {}, { size: i }));
    const order: string[] = [];
    const framework = start(
      statusOps({
        seen: (name) => {
          order.push(name);
        },
      }),
      1,
    );
    await framework.start();
    await eventually(
      async () => {
        const list = await t.h.client.list<Observed>({ ...WIDGET, namespace: 'default' });
        return list.items.filter((o) => o.status?.observedGeneration === 1).length === n;
      },
      20_000,
      'every Widget converged',
    );
    // The own status writes wake a second, no-op pass per object (controller-runtime's too, without a
    // predicate); each one queues behind the first passes still waiting, so the first n passes are n objects.
    await eventually(() => order.length >= 2 * n, 10_000, 'the second passes');
    expect(new Set(order.slice(0, n)).size).toBe(n);
    expect(order.length).toBeLessThanOrEqual(2 * n + 2);
  });
});
