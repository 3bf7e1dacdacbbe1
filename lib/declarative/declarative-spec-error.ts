import { ERROR_KIND, hasCause, hasKind } from '../errors/has-cause.js';

/**
 * A declarative spec that cannot run, with where: `path` names the field
 * (`controllers[0].pipeline['@aggregate'][1]['@select']`) and the message says what to change. A controller
 * with such an error is still created; its status shows the error as critical (Ready False / NotReady).
 * @category Declarative operators
 */
export class DeclarativeSpecError extends Error {
  readonly [ERROR_KIND] = 'DeclarativeSpec';

  constructor(
    /** Where in the spec, e.g. `controllers[2].sources[0].kind`. */
    readonly path: string,
    /** What is wrong and what to do, without the path. */
    readonly problem: string,
    options?: ErrorOptions,
  ) {
    super(`${path}: ${problem}`, options);
    this.name = 'DeclarativeSpecError';
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is a {@link DeclarativeSpecError}.
 * @category Declarative operators
 */
export function isDeclarativeSpecError(err: unknown): boolean {
  return hasCause(
    err,
    (candidate) => candidate instanceof DeclarativeSpecError || hasKind(candidate, 'DeclarativeSpec'),
  );
}

/**
 * An expression or pipeline stage failed on the data it was given (a type error, a list where an object
 * was needed …). Not critical: the data may change; the pass is retried with backoff.
 * @category Declarative operators
 */
export class ExpressionError extends Error {
  readonly [ERROR_KIND] = 'Expression';

  constructor(
    /** Where in the spec the failing expression is. */
    readonly path: string,
    /** What went wrong, without the path. */
    readonly problem: string,
    options?: ErrorOptions,
  ) {
    super(`${path}: ${problem}`, options);
    this.name = 'ExpressionError';
  }
}

/**
 * Whether `err`, or any error on its `cause` chain, is an {@link ExpressionError}.
 * @category Declarative operators
 */
export function isExpressionError(err: unknown): boolean {
  return hasCause(
    err,
    (candidate) => candidate instanceof ExpressionError || hasKind(candidate, 'Expression'),
  );
}

/** Appends a key to a spec path: `a` + 0 → `a[0]`, + `name` → `a.name`, + `@join` → `a['@join']`. */
export function pathAt(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${String(key)}]`;
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}['${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
}

/** A short, safe rendering of a value for an error message. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (undefined)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `a list of ${String(value.length)}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${value.toString()}`;
  }
  return `a ${typeof value}`;
}
