// seed-parity §3 WP-B scenario B13: the finalizer PATCH after a successful create fails once (injected by
// the embedded server); the retry only patches, so the delegate is not called a second time.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { REAL_BACKEND } from '../real/real-backend.js';
import {
  exponentialBackoffRetryPolicy,
  OpinionatedReconciler,
  SimpleReconciler,
  type InformerController,
} from '../../lib/index.js';
import {
  eventually,
  makeController,
  recordReq,
  ref,
  sleep,
  SOURCE,
  startHarness,
  widget,
  type Call,
  type Harness,
  type Widget,
} from './support.js';

const FIN = 'test.reconcilekit.io/widgets';

let h: Harness;
const controllers: InformerController[] = [];
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await Promise.all(controllers.splice(0).map((c) => c.stop()));
  await h.close();
});

// Skipped on the real backend (`make test-real`): fault injection needs the embedded server.

it.skipIf(REAL_BACKEND)(
  'B13: a finalizer PATCH failing once on create is retried alone; the reconciler runs exactly once',
  async () => {
    const calls: Call[] = [];
    const errors: unknown[] = [];
    const c = makeController(
      h,
      { retryPolicy: exponentialBackoffRetryPolicy(50, 5), errorHandler: (_ctx, err) => errors.push(err) },
      controllers,
    );
    c.addInformer(SOURCE, 'widgets');
    c.addReconciler(
      new OpinionatedReconciler({
        finalizer: FIN,
        reconciler: new SimpleReconciler((_ctx, req) => {
          recordReq(calls, 'R', req);
        }),
      }),
      'widgets',
    );
    await c.start();
    // 403 is not retried inside the patch helper, so the failure reaches the InformerController's retry.
    h.server.faults.inject({ verb: 'patch', resource: 'widgets', name: 'w1', status: 403, times: 1 });

    await h.client.create(widget('w1'));
    await eventually(async () => (await h.client.get<Widget>(ref('w1'))).metadata?.finalizers?.includes(FIN));
    await sleep(200); // room for a wrong second delegate call

    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain(`adding finalizer ${FIN} failed`);
    // The update our own successful patch causes is delegated as `updated`; `created` came exactly once.
    expect(calls.filter((x) => x.action === 'created')).toHaveLength(1);
    expect(calls.map((x) => x.action)).toEqual(['created', 'updated']);
  },
);
