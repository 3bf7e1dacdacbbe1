import type { Logger } from '../observability/logger.js';
import { silentLogger } from '../observability/logger-silent.js';
import { startRefusedByPlan } from '../engine/plan-loading.js';
import { handleSignals, type HandleSignalsOptions, type Stoppable } from './handle-signals.js';

/**
 * Something that starts and stops (a Framework).
 * @category Engine: Framework and ControllerCore
 */
export interface Runnable extends Stoppable {
  start(): Promise<void>;
}

/**
 * What an operator's main script calls: starts `framework`, stops it gracefully on SIGTERM/SIGINT and
 * exits 0 (a second signal exits at once). A failed start logs and exits 1. Resolves after the
 * graceful stop (when `exit: false`; otherwise the process exits).
 * @category Engine: Framework and ControllerCore
 */
export async function runUntilSignal(framework: Runnable, options: HandleSignalsOptions = {}): Promise<void> {
  // Under `reconcilekit plan` nothing starts, and the plan (not this process exit) reports it.
  const refused = startRefusedByPlan('runUntilSignal()');
  if (refused !== undefined) throw refused;
  const logger: Logger = options.logger ?? silentLogger();
  const proc = options.process ?? process;
  const handled = handleSignals(framework, options);
  const stopped = handled.stopped;
  try {
    await framework.start();
  } catch (err) {
    logger.error('framework failed to start', { err });
    handled.dispose();
    await framework.stop().catch(() => undefined);
    if (options.exit ?? true) proc.exit(1);
    throw err;
  }
  await stopped;
}
