import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MIN_RECONCILE_INTERVAL_MS } from '../../lib/engine/defaults.js';
import { Framework } from '../../lib/crud/framework.js';
import { createLogger } from '../../lib/observability/logger.js';
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

const PATCHES = 300;
const IN_FLIGHT = 16;

describe('Framework burst coalescing (issue 6, workload 3)', () => {
  let h: Harness;
  let fw: Framework<Widget> | undefined;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await fw?.stop();
    fw = undefined;
    await h.close();
  });

  /** The object's status names its current generation, and the last reconcile saw the final spec. */
  async function converged(recorder: StatusWritingResource, content: string): Promise<boolean> {
    const obj = await h.client.get<Widget & { status?: { observedGeneration?: number } }>(ref('b1'));
    return (
      obj.status?.observedGeneration === obj.metadata?.generation &&
      recorder.lastContent.get('b1') === content
    );
  }

  it(`reconciles a burst of ${PATCHES} patches to one object a handful of times and converges at once`, async () => {
    const recorder = new StatusWritingResource(h);
    fw = new Framework<Widget>({
      name: 'burst',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
      finalizer: false,
      logger: createLogger({ silent: true }),
    });
    expect(fw.config.minReconcileIntervalMs).toBe(DEFAULT_MIN_RECONCILE_INTERVAL_MS);
    await fw.start();
    await h.client.create(widget('b1', {}, { content: 'initial' }));
    await eventually(() => converged(recorder, 'initial'), 5_000, 'the initial version converged');
    await settled(() => recorder.count('create', 'b1'));
    const before = recorder.count('create', 'b1');

    const first = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < PATCHES; i = next++) {
          await h.client.patch(ref('b1'), { spec: { content: `burst ${i}` } }, 'merge');
        }
      }),
    );
    const last = Date.now();
    const final = await h.client.get<Widget>(ref('b1'));
    const finalContent = String(final.spec?.content);
    await eventually(() => converged(recorder, finalContent), 5_000, 'the final version converged');
    const lagMs = Date.now() - last;
    await settled(() => recorder.count('create', 'b1'));
    const reconciles = recorder.count('create', 'b1') - before;

    const burstMs = last - first;
    // ≤ 10 is the target; on a machine so loaded that the burst itself lasts longer than ~0.7 s, the
    // interval's own bound (one run per 100 ms, plus the first run and the final status echo) applies.
    const bound = Math.max(10, Math.ceil(burstMs / DEFAULT_MIN_RECONCILE_INTERVAL_MS) + 3);
    expect(reconciles, `${reconciles} reconciles for a burst of ${burstMs} ms`).toBeLessThanOrEqual(bound);
    expect(reconciles).toBeGreaterThanOrEqual(2);
    expect(lagMs).toBeLessThan(1_000);
    expect(recorder.maxConcurrentPerKey).toBe(1);
  });
});

/** Waits until `count` has not changed for 300 ms (the status echo of the last run has been reconciled). */
async function settled(count: () => number): Promise<void> {
  let last = count();
  let stableSince = Date.now();
  while (Date.now() - stableSince < 300) {
    await new Promise((r) => setTimeout(r, 25));
    const now = count();
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    }
  }
}

/** A Website-like resource: records each run and writes `status.observedGeneration` (whose echo is an event). */
class StatusWritingResource extends RecordingResource {
  readonly lastContent = new Map<string, string>();

  constructor(h: Harness) {
    super('status-writer');
    this.onCreate = async (ctx, obj) => {
      const name = obj.metadata?.name ?? '';
      await h.client.patch(ref(name), { status: { observedGeneration: obj.metadata?.generation } }, 'merge', {
        subresource: 'status',
        signal: ctx.signal,
      });
      this.lastContent.set(name, String(obj.spec?.content));
    };
  }
}
