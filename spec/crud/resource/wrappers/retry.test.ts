import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { resourceCanceled } from '../../../../lib/context/flags.js';
import { ReconcileContext } from '../../../../lib/context/reconcile-context.js';
import { isInvalidConfig } from '../../../../lib/errors/invalid-config-error.js';
import { CRUDResource } from '../../../../lib/crud/resource/crud-resource.js';
import { processDelete, processUpdate } from '../../../../lib/crud/resource/process.js';
import {
  DEFAULT_RETRY_ATTEMPTS,
  defaultRetryBackOffFactory,
  retryResource,
  wrapWithRetry,
} from '../../../../lib/crud/resource/wrappers/retry.js';
import { underlying } from '../../../../lib/crud/resource/wrappers/wrapped-resource.js';
import type { BackOffOptions } from '../../../../lib/util/backoff.js';
import { capturedLogger, fullFlow, recordingOps, recordingResource, type Obj } from '../helpers.js';

const obj: Obj = { metadata: { name: 'demo' } };
/** Tiny, deterministic delays so the suite stays fast without fake timers. */
const fast =
  (attempts = DEFAULT_RETRY_ATTEMPTS) =>
  (): BackOffOptions => ({
    startingDelay: 1,
    timeMultiple: 1,
    jitter: 'none',
    numOfAttempts: attempts,
  });

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('wrapWithRetry over CRUD resources', () => {
  it('GetCurrentState failing once is retried on its own, then the flow continues', async () => {
    const calls: string[] = [];
    const [wrapped] = wrapWithRetry(
      [new CRUDResource({ ops: recordingOps('r', calls, { failures: { GetCurrentState: 1 } }) })],
      {
        backOffFactory: fast(),
      },
    );
    await processDelete(new ReconcileContext(), obj, [wrapped!]);
    expect(calls).toEqual(['r.GetCurrentState', ...fullFlow('r', 'delete')]);
  });

  it('ApplyDeleteChange failing twice runs three times, then ApplyUpdateChange runs', async () => {
    const calls: string[] = [];
    const [wrapped] = wrapWithRetry(
      [new CRUDResource({ ops: recordingOps('r', calls, { failures: { ApplyDeleteChange: 2 } }) })],
      { backOffFactory: fast() },
    );
    await processUpdate(new ReconcileContext(), obj, [wrapped!]);
    expect(calls).toEqual([
      'r.GetCurrentState',
      'r.GetDesiredState',
      'r.NewUpdatePatch',
      'r.ApplyCreateChange',
      'r.ApplyDeleteChange',
      'r.ApplyDeleteChange',
      'r.ApplyDeleteChange',
      'r.ApplyUpdateChange',
    ]);
  });

  it(`gives up after ${DEFAULT_RETRY_ATTEMPTS} attempts by default, throwing the last error and stopping the flow`, async () => {
    const calls: string[] = [];
    const [wrapped] = wrapWithRetry(
      [new CRUDResource({ ops: recordingOps('r', calls, { failures: { GetDesiredState: Infinity } }) })],
      { backOffFactory: () => ({ ...defaultRetryBackOffFactory(), startingDelay: 1, jitter: 'none' }) },
    );
    await expect(processUpdate(new ReconcileContext(), obj, [wrapped!])).rejects.toThrow(
      'r.GetDesiredState failed',
    );
    expect(calls).toEqual([
      'r.GetCurrentState',
      'r.GetDesiredState',
      'r.GetDesiredState',
      'r.GetDesiredState',
    ]);
  });

  it('keeps flag checkpoints working per step', async () => {
    const calls: string[] = [];
    const [wrapped] = wrapWithRetry(
      [
        new CRUDResource({
          ops: recordingOps('r', calls, {
            during: {
              GetDesiredState: (c) => {
                resourceCanceled.set(c);
              },
            },
          }),
        }),
      ],
      { backOffFactory: fast() },
    );
    await processUpdate(new ReconcileContext(), obj, [wrapped!]);
    expect(calls).toEqual(['r.GetCurrentState', 'r.GetDesiredState']);
  });

  it('stops retrying when the backoff retry predicate says no', async () => {
    const calls: string[] = [];
    const [wrapped] = wrapWithRetry(
      [new CRUDResource({ ops: recordingOps('r', calls, { failures: { GetCurrentState: 1 } }) })],
      { backOffFactory: () => ({ ...fast()(), retry: () => false }) },
    );
    await expect(processUpdate(new ReconcileContext(), obj, [wrapped!])).rejects.toThrow(
      'r.GetCurrentState failed',
    );
    expect(calls).toEqual(['r.GetCurrentState']);
  });

  it('stays CRUD-extractable, keeps the name, and leaves the wrapped resource and its ops untouched', async () => {
    const calls: string[] = [];
    const ops = recordingOps('r', calls, { failures: { GetCurrentState: 2 } });
    const methods = { ...ops };
    const original = new CRUDResource({ ops });
    const [wrapped] = wrapWithRetry([original], { backOffFactory: fast() });
    expect(wrapped).toBeInstanceOf(CRUDResource);
    expect(wrapped!.name).toBe('r');
    expect(underlying(wrapped!)).toBe(original);
    expect(original.ops).toBe(ops);
    expect({ ...ops }).toEqual(methods);
    // The original still fails on its first error: nothing was patched into it.
    await expect(original.ensureCreated(new ReconcileContext(), obj)).rejects.toThrow(
      'r.GetCurrentState failed',
    );
    expect(calls).toEqual(['r.GetCurrentState']);
  });

  it('logs each retry as a warning with underlyingResource, function and the error with its stack', async () => {
    const { logger, lines } = capturedLogger();
    const [wrapped] = wrapWithRetry(
      [new CRUDResource({ ops: recordingOps('r', [], { failures: { NewUpdatePatch: 1 } }) })],
      { backOffFactory: fast() },
    );
    await processUpdate(new ReconcileContext({ logger }), obj, [wrapped!]);
    const warnings = (await lines()).filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      message: 'retrying due to error',
      resource: 'r',
      underlyingResource: 'r',
      function: 'NewUpdatePatch',
      attempt: 1,
      err: {
        name: 'Error',
        message: 'r.NewUpdatePatch failed',
        stack: expect.stringContaining('r.NewUpdatePatch failed'),
      },
    });
  });
});

describe('wrapWithRetry over plain resources', () => {
  it.each([
    ['ensureCreated', 'EnsureCreated'],
    ['ensureDeleted', 'EnsureDeleted'],
  ] as const)('%s failing once is retried whole', async (method, label) => {
    const calls: string[] = [];
    const [wrapped] = wrapWithRetry([recordingResource('p', calls, undefined, 1)], {
      backOffFactory: fast(),
    });
    await wrapped![method](new ReconcileContext(), obj);
    expect(calls).toEqual([`p.${label}`, `p.${label}`]);
  });

  it('is not CRUD-extractable and unwraps to the original', () => {
    const original = recordingResource('p', []);
    const wrapped = retryResource(original, { backOffFactory: fast() });
    expect(wrapped).not.toBeInstanceOf(CRUDResource);
    expect(wrapped.name).toBe('p');
    expect(wrapped.wrapped()).toBe(original);
  });

  it('returns a new list and keeps order', () => {
    const list = [recordingResource('a', []), recordingResource('b', [])];
    const wrapped = wrapWithRetry(list);
    expect(wrapped).not.toBe(list);
    expect(wrapped.map((r) => r.name)).toEqual(['a', 'b']);
    expect(wrapped.map((r) => underlying(r))).toEqual(list);
  });
});

describe('wrapWithRetry timing and abort (fake timers)', () => {
  it('waits 500 ms then 750 ms between attempts by default (jitter at its maximum)', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const calls: string[] = [];
    const wrapped = retryResource(recordingResource('p', calls, undefined, 2));
    const done = wrapped.ensureCreated(new ReconcileContext(), obj);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(1);
    // exponential-backoff adds its own zero-delay timer (1 ms in Node) after ours: allow 2 ms of slack.
    await vi.advanceTimersByTimeAsync(499);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(749);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(3);
    expect(calls).toHaveLength(3);
    await expect(done).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an abort during the backoff delay rejects at once with the reason, without another attempt or a timer left', async () => {
    vi.useFakeTimers();
    // Full jitter could draw a delay under the 10 ms advanced below (2 % of runs): pin it to half the nominal.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    onTestFinished(() => {
      random.mockRestore();
    });
    const controller = new AbortController();
    const calls: string[] = [];
    const wrapped = retryResource(recordingResource('p', calls, undefined, Infinity));
    const done = wrapped.ensureCreated(new ReconcileContext({ signal: controller.signal }), obj);
    const outcome = done.then(
      () => 'resolved',
      (err: unknown) => (err as Error).message,
    );
    await vi.advanceTimersByTimeAsync(10);
    expect(calls).toHaveLength(1);
    controller.abort(new Error('shutting down'));
    await expect(outcome).resolves.toBe('shutting down');
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(calls).toHaveLength(1);
  });
});

describe('wrapWithRetry config', () => {
  it('rejects a list that is not an array', () => {
    let caught: unknown;
    try {
      wrapWithRetry('nope' as never);
    } catch (err) {
      caught = err;
    }
    expect(isInvalidConfig(caught)).toBe(true);
    expect((caught as Error).message).toBe('resources must be an array of Resource');
  });

  it('rejects a backOffFactory that is not a function', () => {
    expect(() => wrapWithRetry([], { backOffFactory: 3 as never })).toThrow(
      'options.backOffFactory must be a function returning backoff options',
    );
  });
});
