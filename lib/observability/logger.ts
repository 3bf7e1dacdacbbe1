import { EOL } from 'node:os';
import { Writable } from 'node:stream';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { lazyModule } from '../util/lazy-module.js';
import { consoleLine, LOG_FORMAT_ENV, LOG_FORMATS, type LogFormat } from './logger-console-format.js';
import { serialiseError } from './logger-serialise-errors.js';

/** safe-stable-stringify (CommonJS), required on the first line logged: see `exponentialBackoff` in util/backoff. */
const safeStableStringify = lazyModule(
  'safe-stable-stringify',
) as () => typeof import('safe-stable-stringify');

/**
 * The log levels reconcilekit writes, most verbose first.
 * @category Observability: logs, metrics, Events, health
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/**
 * One of {@link LOG_LEVELS}.
 * @category Observability: logs, metrics, Events, health
 */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Level used when neither `options.level` nor `LOG_LEVEL` says otherwise.
 * @category Observability: logs, metrics, Events, health
 */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

/**
 * Name of the environment variable read for the level when `options.level` is not given.
 * @category Observability: logs, metrics, Events, health
 */
export const LOG_LEVEL_ENV = 'LOG_LEVEL';

/**
 * Structured logger used everywhere in reconcilekit.
 *
 * `child(meta)` returns a logger whose lines all carry `meta`; the parent is untouched, so keys such as
 * `resource` or `function` never leak into unrelated lines. Errors in `meta` (e.g. `{ err }`) are written
 * with their name, message, stack and cause.
 * @category Observability: logs, metrics, Events, health
 */
export interface Logger {
  debug(message: string, meta?: Record<string, unknown>): void;
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
  child(meta: Record<string, unknown>): Logger;
  /**
   * Whether a line at `level` would be written. Optional: callers on hot paths use it to skip building
   * meta for lines that would be dropped; a logger without it is treated as writing every level.
   */
  isLevelEnabled?(level: LogLevel): boolean;
}

/**
 * Options of {@link createLogger}.
 * @category Observability: logs, metrics, Events, health
 */
export interface LoggerOptions {
  /** Lowest level written. Default: `LOG_LEVEL` from the environment, else `'info'`. */
  level?: LogLevel;
  /** Where lines go. Default: `process.stdout`; pass a stream to capture lines in tests. */
  stream?: Writable;
  /**
   * `'json'` (one object per line, for log collectors) or `'console'` (`12:00:01.234 INFO  message key=value`,
   * coloured). Default: `LOG_FORMAT` from the environment, else `'console'` when the stream is a terminal
   * (a person is reading) and `'json'` otherwise (a pod, a pipe, a file).
   */
  format?: LogFormat;
  /** Drop every line. Default: false; useful in tests and benchmarks. */
  silent?: boolean;
  /** Keys written on every line (e.g. `{ operator: 'memcached' }`). Default: none. */
  defaultMeta?: Record<string, unknown>;
}

function resolveLevel(level: string | undefined, source: string): LogLevel {
  if (level === undefined || level === '') return DEFAULT_LOG_LEVEL;
  const normalised = level.toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(normalised)) return normalised as LogLevel;
  throw new InvalidConfigError(
    `${source} must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(level)}`,
  );
}

function resolveFormat(options: LoggerOptions, stream: Writable): LogFormat {
  const given = options.format ?? process.env[LOG_FORMAT_ENV];
  const source = options.format !== undefined ? 'options.format' : LOG_FORMAT_ENV;
  if (given === undefined || given === '')
    return (stream as { isTTY?: boolean }).isTTY === true ? 'console' : 'json';
  if ((LOG_FORMATS as readonly string[]).includes(given)) return given as LogFormat;
  throw new InvalidConfigError(
    `${source} must be one of ${LOG_FORMATS.join(', ')}; got ${JSON.stringify(given)}`,
  );
}

const LEVEL_RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/** JSON with sorted keys, `"[Circular]"` for a cycle and bigints as strings: the same line for the same entry. */
function bigintAsString(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * The entry written for one line: `defaultMeta`, then the merged meta, then `level` and `message` (a
 * `message` key in meta is appended to the message), every top-level `Error` as {@link serialiseError},
 * and `timestamp` (ISO 8601).
 */
function entry(
  level: LogLevel,
  message: string,
  defaultMeta: Record<string, unknown> | undefined,
  meta: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const info: Record<string, unknown> = { ...defaultMeta, ...meta, level, message };
  const extra = meta?.message;
  if (extra !== undefined && extra !== '' && extra !== null)
    info.message = `${message} ${typeof extra === 'string' ? extra : safeStableStringify().stringify(extra, bigintAsString)}`;
  for (const key of Object.keys(info)) {
    const value = info[key];
    if (value instanceof Error) info[key] = serialiseError(value);
  }
  info.timestamp = new Date().toISOString();
  return info;
}

/** Where a logger's lines go, with their format; shared by a logger and all its children. */
interface LineSink {
  readonly stream: Writable;
  readonly format: LogFormat;
  readonly colour: boolean;
  readonly defaultMeta: Record<string, unknown> | undefined;
}

function writeLine(
  sink: LineSink,
  level: LogLevel,
  message: string,
  meta: Record<string, unknown> | undefined,
): void {
  const info = entry(level, message, sink.defaultMeta, meta);
  const text =
    sink.format === 'json'
      ? safeStableStringify().stringify(info, bigintAsString)
      : consoleLine(info, sink.colour);
  sink.stream.write(`${text}${EOL}`);
}

/**
 * A logger whose children are cheap: `child(meta)` only links to its parent and keeps `meta`; the chain
 * is merged (outermost first, per-call meta last) only when a line is actually written, and a line below
 * the level is dropped before any merging or formatting. On the reconcile path (one child per pass,
 * resource and CRUD step) a logger object per child with its meta merged eagerly cost more than the work.
 */
class LineLogger implements Logger {
  constructor(
    private readonly sink: LineSink,
    private readonly maxRank: number,
    private readonly parent: LineLogger | undefined,
    private readonly own: Record<string, unknown> | undefined,
  ) {}

  isLevelEnabled(level: LogLevel): boolean {
    return LEVEL_RANK[level] <= this.maxRank;
  }

  debug(message: string, meta?: Record<string, unknown>): void {
    if (this.maxRank >= 3) writeLine(this.sink, 'debug', message, this.merged(meta));
  }

  info(message: string, meta?: Record<string, unknown>): void {
    if (this.maxRank >= 2) writeLine(this.sink, 'info', message, this.merged(meta));
  }

  warn(message: string, meta?: Record<string, unknown>): void {
    if (this.maxRank >= 1) writeLine(this.sink, 'warn', message, this.merged(meta));
  }

  error(message: string, meta?: Record<string, unknown>): void {
    if (this.maxRank >= 0) writeLine(this.sink, 'error', message, this.merged(meta));
  }

  child(meta: Record<string, unknown>): Logger {
    return new LineLogger(this.sink, this.maxRank, this, meta);
  }

  /** The chain's meta, outermost first, then `meta` (later keys win); `meta` itself at the root. */
  private merged(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    if (this.own === undefined) return meta;
    const chain: Record<string, unknown>[] = [this.own];
    for (let node = this.parent; node?.own !== undefined; node = node.parent) chain.push(node.own);
    const out: Record<string, unknown> = {};
    for (let i = chain.length - 1; i >= 0; i--) Object.assign(out, chain[i]);
    if (meta !== undefined) Object.assign(out, meta);
    return out;
  }
}

/**
 * Creates a {@link Logger} writing one JSON object per line with `timestamp`, `level`, `message` and the
 * meta keys (keys sorted, a cycle written as `"[Circular]"`) — or readable text on a terminal (see
 * {@link LoggerOptions.format}). Each line is one `write` to the stream. An invalid level (in options or
 * `LOG_LEVEL`) or format (`LOG_FORMAT`) is an `InvalidConfigError`.
 * @category Observability: logs, metrics, Events, health
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level =
    options.level !== undefined
      ? resolveLevel(options.level, 'options.level')
      : resolveLevel(process.env[LOG_LEVEL_ENV], LOG_LEVEL_ENV);
  if (options.stream !== undefined && !(options.stream instanceof Writable)) {
    throw new InvalidConfigError('options.stream must be a Writable stream');
  }
  const stream = options.stream ?? process.stdout;
  const format = resolveFormat(options, stream);
  const sink: LineSink = {
    stream,
    format,
    colour: (stream as { isTTY?: boolean }).isTTY === true,
    defaultMeta: options.defaultMeta,
  };
  return new LineLogger(sink, options.silent === true ? -1 : LEVEL_RANK[level], undefined, undefined);
}
