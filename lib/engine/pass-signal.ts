import { setMaxListeners } from 'node:events';
import { ReconcileTimeoutError } from './reconcile-timeout-error.js';

/** The signal of one pass and its timeout (`reconcileTimeoutMs`). */
export interface PassSignal {
  readonly signal: AbortSignal;
  /** The timeout error once the pass timed out, else undefined. */
  readonly timedOut: ReconcileTimeoutError | undefined;
  /** Clears the timer and unlinks from the worker's signal. */
  dispose(): void;
}

const NO_TIMEOUT = (signal: AbortSignal): PassSignal => ({
  signal,
  timedOut: undefined,
  dispose: () => undefined,
});

/**
 * Without a timeout the worker's signal is the pass's signal: no per-pass AbortController. With one, a
 * controller per pass is linked to the worker's signal by a listener removed afterwards
 * (AbortSignal.any per pass piles up dependents on the long-lived parent signal in Node 20).
 */
export function passSignal(signal: AbortSignal, timeoutMs: number): PassSignal {
  if (timeoutMs <= 0) return NO_TIMEOUT(signal);
  const controller = new AbortController();
  // A resource may have many requests in flight on its pass's signal: each adds an abort listener.
  setMaxListeners(0, controller.signal);
  const onParentAbort = (): void => {
    controller.abort(signal.reason);
  };
  if (signal.aborted) onParentAbort();
  else signal.addEventListener('abort', onParentAbort, { once: true });
  const state: { timedOut: ReconcileTimeoutError | undefined } = { timedOut: undefined };
  const timer = setTimeout(() => {
    state.timedOut = new ReconcileTimeoutError(timeoutMs);
    controller.abort(state.timedOut);
  }, timeoutMs);
  return {
    signal: controller.signal,
    get timedOut() {
      return state.timedOut;
    },
    dispose() {
      clearTimeout(timer);
      signal.removeEventListener('abort', onParentAbort);
    },
  };
}
