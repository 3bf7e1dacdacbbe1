import { describe, expect, it } from 'vitest';
import { isThenable, runFlow, runFlowAsync, type StepFlow } from '../../lib/util/maybe-async.js';

describe('runFlow', () => {
  it('returns the result directly when every step is a plain value', () => {
    const seen: unknown[] = [];
    function* flow(): StepFlow<number> {
      seen.push(yield 1);
      seen.push(yield 'two');
      return 3;
    }
    expect(runFlow(flow())).toBe(3);
    expect(seen).toEqual([1, 'two']);
  });

  it('switches to a promise at the first thenable and hands back settled values', async () => {
    const seen: unknown[] = [];
    function* flow(): StepFlow<string> {
      seen.push(yield 1);
      seen.push(yield Promise.resolve(2));
      seen.push(yield 3);
      seen.push(
        yield {
          then: (resolve: (v: number) => void) => {
            resolve(4);
          },
        },
      );
      return 'done';
    }
    const result = runFlow(flow());
    expect(isThenable(result)).toBe(true);
    expect(seen).toEqual([1]);
    await expect(result).resolves.toBe('done');
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('throws a rejection into the flow at its yield, where it can be caught', async () => {
    function* flow(): StepFlow<string> {
      try {
        yield Promise.reject(new Error('boom'));
        return 'not reached';
      } catch (err) {
        return `caught ${(err as Error).message}`;
      }
    }
    await expect(runFlow(flow())).resolves.toBe('caught boom');
  });

  it('rejects with an uncaught rejection unchanged, and with an error thrown after the switch', async () => {
    const boom = new Error('boom');
    function* rejected(): StepFlow<void> {
      yield Promise.reject(boom);
    }
    await expect(runFlow(rejected())).rejects.toBe(boom);
    function* throwsLater(): StepFlow<void> {
      yield Promise.resolve();
      throw boom;
    }
    await expect(runFlow(throwsLater())).rejects.toBe(boom);
  });

  it('throws synchronously from the synchronous part; runFlowAsync turns that into a rejection', async () => {
    const boom = new Error('sync');
    function* flow(): StepFlow<void> {
      yield 1;
      throw boom;
    }
    expect(() => runFlow(flow())).toThrow(boom);
    await expect(runFlowAsync(flow())).rejects.toBe(boom);
  });

  it('runs a synchronous flow without a microtask hop', async () => {
    const order: string[] = [];
    function* flow(): StepFlow<void> {
      for (let i = 0; i < 5; i++) yield i;
      order.push('flow done');
    }
    const tick = Promise.resolve().then(() => order.push('microtask'));
    expect(runFlow(flow())).toBeUndefined();
    order.push('after runFlow');
    await tick;
    expect(order).toEqual(['flow done', 'after runFlow', 'microtask']);
  });
});

describe('isThenable', () => {
  it('recognises promises and thenable objects or functions only', () => {
    const thenableFn = Object.assign(() => undefined, { then: () => undefined });
    expect([Promise.resolve(), { then: () => undefined }, thenableFn].map(isThenable)).toEqual([
      true,
      true,
      true,
    ]);
    expect([undefined, null, 0, 'x', {}, { then: 1 }].map(isThenable)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
