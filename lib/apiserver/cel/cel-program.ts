import type { Environment } from '@marcbachmann/cel-js';
import { CelError, createKubeCelEnvironment, linearMatches } from './kube-cel-library.js';
import { compileLinearRegex, isInvalidRegexError } from '../schema/linear-regex.js';

/**
 * Cost units one rule evaluation may spend (kube: PerCallLimit, k8s.io/apiserver/pkg/apis/cel/config.go).
 * A unit here is one evaluated expression node, plus a tenth of every string/list argument's size passed
 * to a function: close to, not equal to, cel-go's cost model (see docs/apiserver.md).
 */
export const DEFAULT_CEL_PER_CALL_COST_LIMIT = 1_000_000;
/** Cost units all rules of one object validation may spend (kube: RuntimeCELCostBudget). */
export const DEFAULT_CEL_RUNTIME_COST_BUDGET = 10_000_000;
/** Longest rule source accepted (bounds parse time; kube bounds it by the CRD size). */
export const DEFAULT_CEL_MAX_RULE_LENGTH = 64 * 1024;

/** The rule ran out of its per-call or per-object budget. */
export class CelCostLimitError extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
    this.name = 'CelCostLimitError';
  }
}

export function isCelCostLimitError(err: unknown): err is CelCostLimitError {
  return err instanceof CelCostLimitError;
}

/** A compiled expression; `run` evaluates it against variables and charges the active meter. */
export interface CelProgram {
  readonly source: string;
  /** Uses the `oldSelf` variable (a transition rule). */
  readonly usesOldSelf: boolean;
  run(vars: Record<string, unknown>, meter: CostMeter): unknown;
}

/** Counts cost units for one evaluation; throws CelCostLimitError past its limit. */
export class CostMeter {
  spent = 0;
  constructor(private readonly limit: number) {}

  charge(units: number): void {
    this.spent += units;
    if (this.spent > this.limit) throw new CelCostLimitError();
  }
}

const environments: Partial<Record<'plain' | 'optional' | 'admission', Environment>> = {};
function env(optionalOldSelf: boolean, variables: 'schema' | 'admission'): Environment {
  const key = variables === 'admission' ? 'admission' : optionalOldSelf ? 'optional' : 'plain';
  return (environments[key] ??= createKubeCelEnvironment(optionalOldSelf, variables));
}

/** The meter the running evaluation charges (evaluation is synchronous, so one at a time). */
let active: CostMeter | undefined;

function charge(units: number): void {
  active?.charge(units);
}

function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.length;
  return 0;
}

interface AstLike {
  op: string;
  args: unknown;
  meta: { alternate?: AstLike; macro?: Record<string, unknown>; evaluate: EvalFn };
  evaluate: EvalFn;
  handle?: (...args: unknown[]) => unknown;
}
type EvalFn = (this: AstLike, ev: unknown, ast: AstLike, ctx: unknown) => unknown;

function isAst(value: unknown): value is AstLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    'op' in value &&
    'args' in value &&
    typeof (value as { toOldStructure?: unknown }).toOldStructure === 'function'
  );
}

function isPlain(value: unknown): value is Record<string, unknown> | unknown[] {
  if (Array.isArray(value)) return true;
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Instruments a checked AST: every node evaluation charges one unit, every function call charges for
 * its arguments' sizes, and `matches` runs on the linear-time RE2 engine. Relies on cel-js 8's AST
 * shape (node.meta, node.handle); the CEL specs fail loudly if an upgrade changes it.
 */
function instrument(root: AstLike): void {
  const seen = new Set<unknown>();
  const visit = (value: unknown): void => {
    if (seen.has(value)) return;
    if (isAst(value)) {
      seen.add(value);
      const node = value;
      const meta = node.meta;
      const inner: EvalFn = meta.alternate
        ? (ev, _ast, ctx) => meta.alternate?.evaluate(ev, meta.alternate, ctx)
        : meta.macro
          ? (ev, _ast, ctx) => (meta.macro?.evaluate as EvalFn).call(node, ev, meta.macro as never, ctx)
          : meta.evaluate;
      node.evaluate = function (ev, ast, ctx) {
        charge(1);
        return inner.call(this, ev, ast, ctx);
      };
      if ((node.op === 'call' || node.op === 'rcall') && typeof node.handle === 'function') {
        const name: unknown = Array.isArray(node.args) ? (node.args as unknown[])[0] : undefined;
        const original = node.handle;
        node.handle =
          name === 'matches'
            ? (args: unknown) => {
                const [s, p] = args as [unknown, unknown];
                charge(1 + sizeOf(s) / 10);
                return linearMatches(s, p);
              }
            : function (this: unknown, args: unknown, ...rest: unknown[]) {
                if (Array.isArray(args)) charge(args.reduce((n: number, a) => n + sizeOf(a), 0) / 10);
                return original.call(this, args, ...rest);
              };
      }
      visit(node.args);
      visit(meta.alternate);
      visit(meta.macro);
      return;
    }
    if (!isPlain(value)) return;
    seen.add(value);
    for (const child of Array.isArray(value) ? value : Object.values(value)) visit(child);
  };
  visit(root);
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/** Compiles a CEL expression; throws CelError with the reason when it does not parse or type-check. */
export function compileCel(
  source: string,
  resultType?: 'bool' | 'string',
  optionalOldSelf = false,
  variables: 'schema' | 'admission' = 'schema',
): CelProgram {
  if (source.length > DEFAULT_CEL_MAX_RULE_LENGTH) {
    throw new CelError(`expression is longer than ${DEFAULT_CEL_MAX_RULE_LENGTH} characters`);
  }
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = env(optionalOldSelf, variables).parse(source);
  } catch (err) {
    throw new CelError(`ERROR: <input>: Syntax error: ${firstLine(errorText(err))}`);
  }
  const checked = parsed.check();
  if (!checked.valid) throw new CelError(`ERROR: <input>: ${firstLine(errorText(checked.error))}`);
  if (resultType !== undefined && checked.type !== resultType && checked.type !== 'dyn') {
    throw new CelError(`cel expression must evaluate to a ${resultType}`);
  }
  const ast = parsed.ast as unknown as AstLike;
  const usesOldSelf = checkLiteralPatterns(ast);
  instrument(ast);
  return {
    source,
    usesOldSelf,
    run(vars, meter) {
      const previous = active;
      active = meter;
      try {
        return parsed(vars) as unknown;
      } finally {
        active = previous;
      }
    },
  };
}

/** Walks the AST: rejects literal `matches` patterns RE2 cannot compile; reports whether `oldSelf` is used. */
function checkLiteralPatterns(root: AstLike): boolean {
  let usesOldSelf = false;
  const seen = new Set<unknown>();
  const visit = (value: unknown): void => {
    if (seen.has(value)) return;
    if (isAst(value)) {
      seen.add(value);
      if (value.op === 'id' && value.args === 'oldSelf') usesOldSelf = true;
      if ((value.op === 'rcall' || value.op === 'call') && Array.isArray(value.args)) {
        const [name] = value.args as [unknown];
        if (name === 'matches' || name === 'find' || name === 'findAll') {
          const argList = (value.op === 'rcall' ? value.args[2] : value.args[1]) as unknown[];
          const pattern = argList[argList.length - (value.op === 'call' ? 1 : argList.length)];
          if (isAst(pattern) && pattern.op === 'value' && typeof pattern.args === 'string') {
            try {
              compileLinearRegex(pattern.args);
            } catch (err) {
              if (isInvalidRegexError(err)) throw new CelError(`ERROR: <input>: ${err.message}`);
              throw err;
            }
          }
        }
      }
      visit(value.args);
      visit(value.meta.alternate);
      visit(value.meta.macro);
      return;
    }
    if (!isPlain(value)) return;
    seen.add(value);
    for (const child of Array.isArray(value) ? value : Object.values(value)) visit(child);
  };
  visit(root);
  return usesOldSelf;
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const summary = (err as { summary?: unknown }).summary;
    return typeof summary === 'string' ? summary : err.message;
  }
  return String(err);
}

/** The text of an evaluation error as cel-go phrases the common ones (`no such key: x`). */
export function evaluationErrorText(err: unknown): string {
  const text = firstLine(errorText(err));
  return text.replace(/^No such key/, 'no such key');
}
