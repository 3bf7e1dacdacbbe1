/** Whether `value` is something `await` would wait for (an object or function with a `then` method). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    ((typeof value === 'object' && value !== null) || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * A flow written once as a generator that yields each step's result: a plain value or a promise. The
 * generator receives back the settled value (or, for a rejected promise, the error thrown at the
 * `yield`), exactly as if it had awaited it.
 */
export type StepFlow<T> = Generator<unknown, T, unknown>;

/**
 * Runs `flow` synchronously while its steps return plain values, and switches to awaiting at the
 * first promise. Returns the result directly when every step was synchronous, else a promise of it;
 * errors are thrown directly (synchronous part) or reject the promise. This keeps the no-I/O path of
 * the engine free of microtask hops (`await` on a plain value still costs one), while a flow with real
 * I/O behaves exactly as an `async` function would.
 */
export function runFlow<T>(flow: StepFlow<T>): T | Promise<T> {
  let step = flow.next();
  while (step.done !== true) {
    const value = step.value;
    if (isThenable(value)) return continueAsync(flow, value);
    step = flow.next(value);
  }
  return step.value;
}

async function continueAsync<T>(flow: StepFlow<T>, pending: PromiseLike<unknown>): Promise<T> {
  let next = pending;
  for (;;) {
    let value: unknown;
    let failed = false;
    try {
      value = await next;
    } catch (err) {
      failed = true;
      value = err;
    }
    let step = failed ? flow.throw(value) : flow.next(value);
    while (step.done !== true && !isThenable(step.value)) step = flow.next(step.value);
    if (step.done === true) return step.value;
    next = step.value as PromiseLike<unknown>;
  }
}

/** {@link runFlow} as a promise always (for public `async` APIs). */
export async function runFlowAsync<T>(flow: StepFlow<T>): Promise<T> {
  return runFlow(flow);
}
