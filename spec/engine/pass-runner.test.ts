// PassRunner (one pass over one object, for every front end) and FailureLedger, driven directly with a
// scripted pass body: verdict → outcome, step order and context, failures as outcomes (it never throws),
// retry-soon errors, abort and timeout, pause, deletion memory, and the finalizer steps against the spec
// harness's server (embedded; the shared kube-apiserver under `make test-real`).
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { defineContextKey } from '../../lib/context/context-key.js';
import type { ReconcileContext } from '../../lib/context/reconcile-context.js';
import { StaleObjectError } from '../../lib/errors/stale-object-error.js';
import { DEFAULT_PAUSE_ANNOTATIONS } from '../../lib/engine/defaults.js';
import { FailureLedger } from '../../lib/engine/failure-ledger.js';
import { FailureReporter } from '../../lib/engine/failure-report.js';
import { addFinalizer, removeFinalizer } from '../../lib/engine/finalizers.js';
import type { PassBody, PassInfo, PassPlan } from '../../lib/engine/pass-body.js';
import { PassRunner, type PassRunnerOptions, type ReconcileOutcome } from '../../lib/engine/pass-runner.js';
import { isReconcileTimeout } from '../../lib/engine/reconcile-timeout-error.js';
import { RemovedFinalizerMemory } from '../../lib/engine/removed-finalizer-memory.js';
import { TerminalError } from '../../lib/engine/terminal-error.js';
import { ControllerMetrics } from '../../lib/observability/controller-metrics.js';
import { createLogger } from '../../lib/observability/logger.js';
import { defaultBackOffFactory } from '../../lib/util/backoff.js';
import { ref, useHarness, widget, WIDGET, type Widget } from '../crud/harness.js';
import { dropInWidget, FakeBody, FINALIZER } from './engine-support.js';

const KEY = 'default/a';

function makeRunner(
  body: PassBody<Widget>,
  options: Partial<PassRunnerOptions<Widget>> = {},
): { runner: PassRunner<Widget>; registry: Registry } {
  const registry = new Registry();
  const metrics = new ControllerMetrics({ registry, controller: 'runner-spec' });
  const runner = new PassRunner<Widget>({
    body,
    finalizer: false,
    pauseAnnotations: DEFAULT_PAUSE_ANNOTATIONS,
    logger: createLogger({ silent: true }),
    metrics,
    failures: new FailureReporter({ metrics, events: undefined, errorConditions: undefined }),
    memory: new RemovedFinalizerMemory(60_000),
    finalizers: undefined,
    reconcileTimeoutMs: 0,
    ...options,
  });
  return { runner, registry };
}

const live = () => new AbortController().signal;
const deleting = (name: string) =>
  dropInWidget(name, '1', { deletionTimestamp: new Date().toISOString() as unknown as Date });

describe('PassRunner', () => {
  it.each([
    [{ kind: 'done' } as const, { result: 'success' }],
    [{ kind: 'requeueAfter', delayMs: 1_234 } as const, { result: 'requeue_after', delayMs: 1_234 }],
    [{ kind: 'keepFinalizer' } as const, { result: 'requeue' }],
  ])('turns the verdict %j of apply into the outcome %j', async (verdict, outcome) => {
    const body = new FakeBody();
    body.apply = () => verdict;
    const { runner } = makeRunner(body);
    expect(await runner.reconcile(KEY, dropInWidget('a', '1'), undefined, 0, live())).toEqual(outcome);
  });

  it('hands the body the key, attempt and path in PassInfo', async () => {
    const body = new FakeBody();
    const { runner } = makeRunner(body);
    await runner.reconcile(KEY, dropInWidget('a', '1'), undefined, 3, live());
    await runner.reconcile(KEY, deleting('a'), undefined, 0, live());
    await runner.reconcile('default/b', undefined, dropInWidget('b', '1'), 1, live());
    expect(
      body.calls.map(({ phase, key, attempt, deleting: d, gone }) => ({ phase, key, attempt, d, gone })),
    ).toEqual([
      { phase: 'apply', key: KEY, attempt: 3, d: false, gone: false },
      { phase: 'cleanup', key: KEY, attempt: 0, d: true, gone: false },
      { phase: 'cleanup', key: 'default/b', attempt: 1, d: true, gone: true },
    ]);
  });

  it("runs the engine's context set-up, then prepare, then apply, on one context", async () => {
    const order: string[] = [];
    const mark = defineContextKey<string>('spec.mark');
    const contexts: ReconcileContext[] = [];
    const body: PassBody<Widget> = {
      plan: (): PassPlan<Widget> => ({
        // eslint-disable-next-line require-yield -- a step flow without I/O
        *prepare(ctx) {
          order.push(`prepare sees ${ctx.get(mark)}`);
          contexts.push(ctx);
        },
        // eslint-disable-next-line require-yield -- a step flow without I/O
        *apply(ctx) {
          order.push('apply');
          contexts.push(ctx);
          return { kind: 'done' };
        },
        // eslint-disable-next-line require-yield -- a step flow without I/O
        *cleanup() {
          order.push('cleanup');
          return { kind: 'done' };
        },
      }),
    };
    const { runner } = makeRunner(body, {
      prepareContext: (ctx) => {
        order.push('engine');
        ctx.set(mark, 'engine values');
      },
    });
    expect(await runner.reconcile(KEY, dropInWidget('a', '1'), undefined, 0, live())).toEqual({
      result: 'success',
    });
    expect(order).toEqual(['engine', 'prepare sees engine values', 'apply']);
    expect(contexts[0]).toBe(contexts[1]);
  });

  it('never throws: an error from plan, prepare or apply becomes an error outcome, counted', async () => {
    const failures: PassBody<Widget>[] = [
      {
        plan: () => {
          throw new Error('plan failed');
        },
      },
      {
        plan: () => ({
          // eslint-disable-next-line require-yield -- fails before any I/O
          *prepare() {
            throw new Error('prepare failed');
          },
          apply: () => {
            throw new Error('not reached');
          },
          cleanup: () => {
            throw new Error('not reached');
          },
        }),
      },
    ];
    const applying = new FakeBody();
    applying.apply = () => Promise.reject(new Error('apply failed'));
    failures.push(applying);
    const messages: string[] = [];
    for (const body of failures) {
      const { runner, registry } = makeRunner(body);
      const outcome = await runner.reconcile(KEY, dropInWidget('a', '1'), undefined, 0, live());
      expect(outcome).toMatchObject({ result: 'error', terminal: false });
      messages.push((outcome as { error: Error }).error.message);
      expect(await registry.metrics()).toContain(
        'controller_runtime_reconcile_errors_total{controller="runner-spec"} 1',
      );
    }
    expect(messages).toEqual(['plan failed', 'prepare failed', 'apply failed']);
  });

  it('marks a TerminalError (also as a cause) terminal', async () => {
    const body = new FakeBody();
    body.apply = () => {
      throw new Error('outer', { cause: new TerminalError('bad spec') });
    };
    const { runner } = makeRunner(body);
    expect(await runner.reconcile(KEY, dropInWidget('a', '1'), undefined, 0, live())).toMatchObject({
      result: 'error',
      terminal: true,
    });
  });

  it('turns a StaleObjectError into requeue_after its delay, with no error counted', async () => {
    const body = new FakeBody();
    body.apply = () => {
      throw new Error('write refused', { cause: new StaleObjectError('409', { retryAfterMs: 250 }) });
    };
    const { runner, registry } = makeRunner(body);
    expect(await runner.reconcile(KEY, dropInWidget('a', '1'), undefined, 0, live())).toEqual({
      result: 'requeue_after',
      delayMs: 250,
    });
    expect(await registry.metrics()).toContain(
      'controller_runtime_reconcile_errors_total{controller="runner-spec"} 0',
    );
  });

  it('answers aborted, counting nothing, when the worker signal aborts mid-pass', async () => {
    const body = new FakeBody();
    const abort = new AbortController();
    body.apply = () => new Promise<undefined>(() => undefined);
    const { runner, registry } = makeRunner(body);
    const pass = runner.reconcile(KEY, dropInWidget('a', '1'), undefined, 0, abort.signal);
    abort.abort(new Error('leadership lost'));
    expect(await pass).toEqual({ result: 'aborted' });
    expect(await registry.metrics()).not.toMatch(/controller_runtime_reconcile_total\{[^}]*\} [1-9]/);
  });

  it('fails a pass that outlives reconcileTimeoutMs with a ReconcileTimeoutError', async () => {
    const body = new FakeBody();
    let seen: AbortSignal | undefined;
    body.apply = (_obj, _info, ctx) => {
      seen = ctx.signal;
      return new Promise<undefined>(() => undefined);
    };
    const { runner } = makeRunner(body, { reconcileTimeoutMs: 20 });
    const outcome = await runner.reconcile(KEY, dropInWidget('a', '1'), undefined, 0, live());
    expect(outcome).toMatchObject({ result: 'error', terminal: false });
    expect(isReconcileTimeout((outcome as { error: unknown }).error)).toBe(true);
    expect(seen?.aborted).toBe(true);
  });

  it('does not plan a paused object: success without calling the body', async () => {
    const body = new FakeBody();
    let planned = 0;
    const plan = body.plan.bind(body);
    body.plan = (obj: Widget, info: PassInfo) => {
      planned += 1;
      return plan(obj, info);
    };
    const { runner } = makeRunner(body);
    const paused = dropInWidget('a', '1', { annotations: { 'cluster.x-k8s.io/paused': 'true' } });
    expect(await runner.reconcile(KEY, paused, undefined, 0, live())).toEqual({
      result: 'success',
      paused: { key: 'cluster.x-k8s.io/paused', value: 'true' },
    });
    expect(await runner.reconcile(KEY, deleting('a'), undefined, 0, live())).toMatchObject({
      result: 'success',
    });
    expect(planned).toBe(1);
  });

  it('a key with neither object nor tombstone is done without planning', async () => {
    const body = new FakeBody();
    const { runner } = makeRunner(body);
    expect(await runner.reconcile(KEY, undefined, undefined, 0, live())).toEqual({
      result: 'success',
      tombstoneDone: true,
    });
    expect(body.calls).toEqual([]);
  });

  it('remembers a handled deletion by uid: the same object deleting again does not run cleanup twice', async () => {
    const body = new FakeBody();
    const { runner } = makeRunner(body);
    expect(await runner.reconcile(KEY, deleting('a'), undefined, 0, live())).toEqual({
      result: 'success',
      tombstoneDone: true,
    });
    await runner.reconcile(KEY, deleting('a'), undefined, 0, live());
    await runner.reconcile(KEY, undefined, dropInWidget('a', '1'), 0, live());
    expect(body.of('cleanup')).toHaveLength(1);
  });

  it('an edge-triggered body gets every deletion (no memory of handled ones)', async () => {
    const body = new FakeBody();
    Object.assign(body, { edgeTriggered: true });
    const { runner } = makeRunner(body);
    await runner.reconcile(KEY, deleting('a'), undefined, 0, live());
    await runner.reconcile(KEY, undefined, dropInWidget('a', '1'), 0, live());
    expect(body.of('cleanup').map((c) => c.gone)).toEqual([false, true]);
  });

  describe('with finalizers on a server', () => {
    const t = useHarness();

    function withFinalizers(body: FakeBody) {
      const client = t.h.client;
      return makeRunner(body, {
        finalizer: FINALIZER,
        finalizers: {
          add: (obj, signal) => addFinalizer(client, WIDGET, obj, FINALIZER, defaultBackOffFactory, signal),
          remove: (obj, signal) =>
            removeFinalizer(client, WIDGET, obj, FINALIZER, defaultBackOffFactory, signal),
        },
      });
    }

    it('adds its finalizer and ends the pass (no apply); the next pass, on the patched object, applies', async () => {
      const body = new FakeBody();
      const { runner } = withFinalizers(body);
      const created = await t.h.client.create(widget('w1'));
      const first: ReconcileOutcome = await runner.reconcile('default/w1', created, undefined, 0, live());
      expect(first.result).toBe('success');
      const added = (first as { added?: Widget }).added;
      expect(added?.metadata?.finalizers).toEqual([FINALIZER]);
      expect(body.calls).toEqual([]);
      expect((await t.h.client.get<Widget>(ref('w1'))).metadata?.finalizers).toEqual([FINALIZER]);
      expect(await runner.reconcile('default/w1', added, undefined, 0, live())).toEqual({
        result: 'success',
      });
      expect(body.of('apply')).toHaveLength(1);
    });

    it('removes its finalizer only after cleanup is done', async () => {
      const body = new FakeBody();
      let kept = true;
      body.cleanup = async () => {
        const onServer = await t.h.client.get<Widget>(ref('w1'));
        expect(onServer.metadata?.finalizers).toEqual([FINALIZER]);
        return kept ? { kind: 'keepFinalizer' } : undefined;
      };
      const { runner } = withFinalizers(body);
      await t.h.client.create(widget('w1', { finalizers: [FINALIZER] }));
      await t.h.client.delete(ref('w1'));
      const terminating = await t.h.client.get<Widget>(ref('w1'));
      expect(await runner.reconcile('default/w1', terminating, undefined, 0, live())).toEqual({
        result: 'requeue',
      });
      expect((await t.h.client.get<Widget>(ref('w1'))).metadata?.finalizers).toEqual([FINALIZER]);
      kept = false;
      expect(await runner.reconcile('default/w1', terminating, undefined, 0, live())).toEqual({
        result: 'success',
        tombstoneDone: true,
      });
      await expect(t.h.client.get(ref('w1'))).rejects.toMatchObject({ code: 404 });
      expect(body.of('cleanup')).toHaveLength(2);
    });

    it('skips cleanup for a deleting object that does not carry its finalizer', async () => {
      const body = new FakeBody();
      const { runner } = withFinalizers(body);
      await t.h.client.create(widget('w1', { finalizers: ['someone-else.example.com/hold'] }));
      await t.h.client.delete(ref('w1'));
      const terminating = await t.h.client.get<Widget>(ref('w1'));
      expect(await runner.reconcile('default/w1', terminating, undefined, 0, live())).toEqual({
        result: 'success',
      });
      expect(body.calls).toEqual([]);
      await t.h.client.patch(ref('w1'), { metadata: { finalizers: null } }, 'merge');
    });
  });
});

describe('FailureLedger', () => {
  it('counts failed passes in a row per key, starting at attempt 0', () => {
    const ledger = new FailureLedger();
    expect(ledger.attempt('a')).toBe(0);
    expect(ledger.failing('a')).toBe(false);
    expect([ledger.failed('a', false), ledger.failed('a', false), ledger.failed('a', false)]).toEqual([
      0, 1, 2,
    ]);
    expect(ledger.attempt('a')).toBe(3);
    expect(ledger.failing('a')).toBe(true);
    expect(ledger.attempt('b')).toBe(0);
  });

  it('marks a terminal failure until reset', () => {
    const ledger = new FailureLedger();
    ledger.failed('a', false);
    expect(ledger.isTerminal('a')).toBe(false);
    ledger.failed('a', true);
    expect(ledger.isTerminal('a')).toBe(true);
    expect(ledger.failing('a')).toBe(true);
    ledger.reset('a');
    expect(ledger.isTerminal('a')).toBe(false);
    expect(ledger.failing('a')).toBe(false);
    expect(ledger.attempt('a')).toBe(0);
  });

  it('reset of one key leaves the others', () => {
    const ledger = new FailureLedger();
    ledger.failed('a', true);
    ledger.failed('b', false);
    ledger.reset('a');
    expect(ledger.attempt('b')).toBe(1);
    expect(ledger.failing('a')).toBe(false);
  });
});
