import type { Logger } from '../observability/logger.js';
import { silentLogger } from '../observability/logger-silent.js';

/**
 * Something with a graceful `stop()` (a Framework, or several behind one facade).
 * @category Engine: Framework and ControllerCore
 */
export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * The process surface the handler needs (injectable for tests).
 * @category Engine: Framework and ControllerCore
 */
export interface SignalProcess {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
  off(signal: NodeJS.Signals, listener: () => void): unknown;
  exit(code?: number): never | void;
}

/** @category Engine: Framework and ControllerCore */
export interface HandleSignalsOptions {
  /** Signals that stop gracefully. Default SIGTERM (Kubernetes) and SIGINT (Ctrl-C). */
  signals?: readonly NodeJS.Signals[];
  /** Logger for the shutdown lines. Default silent. */
  logger?: Logger;
  /** Process to listen on and exit. Default the real `process`. */
  process?: SignalProcess;
  /** Exit after the graceful stop (code 0, or 1 when stop failed). Default true. */
  exit?: boolean;
}

/**
 * Signals handled by default.
 * @category Engine: Framework and ControllerCore
 */
export const DEFAULT_SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = Object.freeze(['SIGTERM', 'SIGINT']);

/**
 * Stops `target` gracefully on the first SIGTERM/SIGINT and exits 0 once it stopped; a second signal
 * exits at once with code 1 (an impatient operator, or a stuck shutdown). Returns a function that
 * removes the handlers and a promise settled when a signal-triggered stop finished.
 * @category Engine: Framework and ControllerCore
 */
export function handleSignals(
  target: Stoppable,
  options: HandleSignalsOptions = {},
): { dispose: () => void; stopped: Promise<void> } {
  const proc = options.process ?? process;
  const signals = options.signals ?? DEFAULT_SHUTDOWN_SIGNALS;
  const logger = options.logger ?? silentLogger();
  const exit = options.exit ?? true;
  let received = 0;
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  const dispose = (): void => {
    for (const signal of signals) proc.off(signal, handlers.get(signal) ?? (() => undefined));
  };
  const handlers = new Map<NodeJS.Signals, () => void>();
  for (const signal of signals) {
    const handler = (): void => {
      received += 1;
      if (received > 1) {
        logger.warn(`received ${signal} again: exiting now`);
        proc.exit(1);
        return;
      }
      logger.info(`received ${signal}: stopping gracefully (send it again to exit at once)`);
      target.stop().then(
        () => {
          dispose();
          resolveStopped();
          if (exit) proc.exit(0);
        },
        (err: unknown) => {
          logger.error('graceful stop failed', { err });
          dispose();
          resolveStopped();
          if (exit) proc.exit(1);
        },
      );
    };
    handlers.set(signal, handler);
    proc.on(signal, handler);
  }
  return { dispose, stopped };
}
