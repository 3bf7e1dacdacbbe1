import type { Logger } from './logger.js';

const noop = (): void => undefined;

const SILENT: Logger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => SILENT,
  isLevelEnabled: () => false,
};

/**
 * A {@link Logger} that drops everything; the default wherever a logger is optional.
 * @category Observability: logs, metrics, Events, health
 */
export function silentLogger(): Logger {
  return SILENT;
}
