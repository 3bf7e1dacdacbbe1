import { RE2JS } from 're2js';

/**
 * Regular expressions with RE2 semantics and linear-time matching, as kube-apiserver evaluates a CRD
 * schema's `pattern` (Go's `regexp`) and CEL's `matches()` (RE2). JavaScript's own `RegExp`
 * backtracks: `^(a+)+$` against 30 characters blocks the event loop for seconds, so a hostile schema
 * could stall every request. re2js (a pure-JS port of RE2) matches in time linear in the input and
 * rejects what RE2 rejects (lookaround, backreferences), which is what kube rejects at CRD creation.
 */
export interface LinearRegex {
  /** The pattern as written. */
  readonly source: string;
  /** Whether the pattern matches anywhere in `input` (unanchored, like Go's `MatchString`). */
  test(input: string): boolean;
}

/** A pattern the RE2 syntax does not accept (lookaround, backreferences, bad escapes, …). */
export class InvalidRegexError extends Error {
  readonly pattern: string;

  constructor(pattern: string, reason: string, options?: ErrorOptions) {
    super(`invalid regular expression ${JSON.stringify(pattern)}: ${reason}`, options);
    this.name = 'InvalidRegexError';
    this.pattern = pattern;
  }

  /** The reason alone, as RE2 phrased it (`error parsing regexp: …`). */
  get reason(): string {
    return this.message.slice(this.message.indexOf(': ') + 2);
  }
}

/** Whether `err` is an {@link InvalidRegexError}. */
export function isInvalidRegexError(err: unknown): err is InvalidRegexError {
  return err instanceof InvalidRegexError;
}

/**
 * How many compiled patterns are kept. A CRD schema holds a handful; the cap only stops a client that
 * sends many distinct CEL `matches()` patterns from growing memory without bound.
 */
export const DEFAULT_LINEAR_REGEX_CACHE_SIZE = 1024;

const cache = new Map<string, LinearRegex | InvalidRegexError>();

/**
 * Compiles `pattern` with RE2 semantics. Throws {@link InvalidRegexError} when RE2 cannot compile it.
 * Compiled patterns are cached (bounded, least recently compiled evicted first).
 */
export function compileLinearRegex(pattern: string): LinearRegex {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    entry = compileUncached(pattern);
    if (cache.size >= DEFAULT_LINEAR_REGEX_CACHE_SIZE) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(pattern, entry);
  }
  if (entry instanceof InvalidRegexError) throw entry;
  return entry;
}

/** The reason RE2 rejects `pattern`, or undefined when it compiles. */
export function linearRegexError(pattern: string): string | undefined {
  try {
    compileLinearRegex(pattern);
    return undefined;
  } catch (err) {
    if (isInvalidRegexError(err)) return err.reason;
    throw err;
  }
}

function compileUncached(pattern: string): LinearRegex | InvalidRegexError {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return new InvalidRegexError(pattern, reason, { cause: err });
  }
  return { source: pattern, test: (input: string) => compiled.test(input) };
}
