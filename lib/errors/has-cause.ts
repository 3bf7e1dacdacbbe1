/** How many `cause` links a predicate follows before giving up (guards against cause cycles). */
export const MAX_CAUSE_DEPTH = 100;

/**
 * Whether `err` or any error on its `cause` chain satisfies `test`.
 *
 * Predicates such as `isInvalidConfig` are built on this, so an error stays recognisable after any
 * number of layers wrapped it with `new Error('…', { cause })`. Cycles in the chain are tolerated.
 * @category Errors
 */
export function hasCause(err: unknown, test: (candidate: unknown) => boolean): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  for (let depth = 0; depth <= MAX_CAUSE_DEPTH; depth++) {
    if (current === undefined || current === null || seen.has(current)) return false;
    if (test(current)) return true;
    seen.add(current);
    if (typeof current !== 'object') return false;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** Marks an error with a kind that survives duplicated module copies (where `instanceof` fails). */
export const ERROR_KIND = Symbol.for('reconcilekit.errorKind');

/** Whether `candidate` is an error carrying the given reconcilekit kind. */
export function hasKind(candidate: unknown, kind: string): boolean {
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    (candidate as { [ERROR_KIND]?: unknown })[ERROR_KIND] === kind
  );
}
