/**
 * The two line formats of `createLogger`: JSON objects for machines, aligned text for people.
 * @category Observability: logs, metrics, Events, health
 */
export const LOG_FORMATS = ['json', 'console'] as const;

/**
 * One of {@link LOG_FORMATS}.
 * @category Observability: logs, metrics, Events, health
 */
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * Name of the environment variable read for the format when `options.format` is not given.
 * @category Observability: logs, metrics, Events, health
 */
export const LOG_FORMAT_ENV = 'LOG_FORMAT';

const LEVEL_COLOURS: Record<string, string> = { error: '31', warn: '33', info: '36', debug: '90' };

function isSerialisedError(v: unknown): v is { name: string; message: string; stack?: string } {
  return (
    typeof v === 'object' && v !== null && 'name' in v && 'message' in v && typeof v.message === 'string'
  );
}

function valueText(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (isSerialisedError(v)) return JSON.stringify(`${v.name}: ${v.message}`);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return String(v);
  return JSON.stringify(v);
}

/**
 * One readable line for a log entry: `HH:MM:SS.mmm LEVEL message key=value …`, the level coloured when
 * `colour` is set, and the stack of an error logged at `error` level on the lines after it. Errors in the
 * entry are already `{ name, message, stack }` (see `serialiseError`).
 */
export function consoleLine(info: Record<string, unknown>, colour: boolean): string {
  const { level: rawLevel, message, timestamp, ...meta } = info;
  const level = String(rawLevel);
  const time = typeof timestamp === 'string' ? timestamp.slice(11, 23) : '';
  const label = level.toUpperCase().padEnd(5);
  const shown = colour ? `\u001b[${LEVEL_COLOURS[level] ?? '0'}m${label}\u001b[0m` : label;
  const pairs = Object.entries(meta).map(([k, v]) => `${k}=${valueText(v)}`);
  let line = `${time} ${shown} ${String(message)}${pairs.length > 0 ? `  ${pairs.join(' ')}` : ''}`;
  if (level === 'error') {
    for (const v of Object.values(meta)) {
      if (isSerialisedError(v) && typeof v.stack === 'string') line += `\n${v.stack.replace(/^/gm, '    ')}`;
    }
  }
  return line;
}
