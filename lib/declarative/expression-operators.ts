import { DeclarativeSpecError, describeValue, ExpressionError, pathAt } from './declarative-spec-error.js';
import {
  asBool,
  asList,
  asNumber,
  asObject,
  asTuple,
  jsonEqual,
  matchesLabelSelector,
  shortHash,
  typeError,
} from './expression-values.js';
import { isJsonPathString, parseJsonPath, setJsonPath } from './json-path.js';
import type { CompiledExpression, EvaluationScope } from './compile-expression.js';
import type { Expression } from './operator-spec.js';

type Compile = (expr: Expression, path: string) => CompiledExpression;
/** Turns an operator's argument into its evaluator (checks what can be checked before any data is seen). */
export type OperatorCompiler = (
  arg: Expression,
  path: string,
  op: string,
  compile: Compile,
) => CompiledExpression;

/** The argument as a literal list of `min..max` expressions, each compiled (for lazy operators). */
function literalArgs(
  arg: Expression,
  path: string,
  op: string,
  compile: Compile,
  min: number,
  max = min,
): CompiledExpression[] {
  if (!Array.isArray(arg)) {
    throw new DeclarativeSpecError(
      path,
      `${op} takes a list of ${min === max ? String(min) : `${String(min)}–${String(max)}`} expressions, got ${describeValue(arg)}`,
    );
  }
  if (arg.length < min || arg.length > max) {
    const want =
      min === max
        ? String(min)
        : max === Infinity
          ? `at least ${String(min)}`
          : `${String(min)}–${String(max)}`;
    throw new DeclarativeSpecError(path, `${op} takes ${want} arguments, got ${String(arg.length)}`);
  }
  return arg.map((a, i) => compile(a, pathAt(path, i)));
}

/** Strict operators: the argument is evaluated first; a literal list is checked for its length up front. */
function strict(
  n: number | undefined,
  body: (value: unknown, path: string, op: string, scope: EvaluationScope) => unknown,
): OperatorCompiler {
  return (arg, path, op, compile) => {
    if (n !== undefined && Array.isArray(arg) && arg.length !== n) {
      throw new DeclarativeSpecError(path, `${op} takes ${String(n)} arguments, got ${String(arg.length)}`);
    }
    const inner = compile(arg, path);
    return (scope) => {
      const value = inner(scope);
      return body(n === undefined ? value : asTuple(value, n, path, op), path, op, scope);
    };
  };
}

function compare(test: (a: number, b: number) => boolean): OperatorCompiler {
  return strict(2, (v, path, op) => {
    const [a, b] = v as [unknown, unknown];
    if (typeof a === 'string' && typeof b === 'string') return test(a < b ? -1 : a > b ? 1 : 0, 0);
    return test(asNumber(a, path, op, 'argument 0'), asNumber(b, path, op, 'argument 1'));
  });
}

/** `[condition, list]` operators: the condition sees each element as `$$`. */
function overList(
  finish: (results: (() => boolean)[], items: unknown[]) => unknown,
  wantBool = true,
): OperatorCompiler {
  return (arg, path, op, compile) => {
    const [fn, list] = literalArgs(arg, path, op, compile, 2) as [CompiledExpression, CompiledExpression];
    return (scope) => {
      const items = asList(list(scope), pathAt(path, 1), op, 'the list argument');
      const results = items.map((item) => () => {
        const r = fn({ doc: scope.doc, subject: item, now: scope.now });
        return wantBool ? asBool(r, pathAt(path, 0), op, 'the condition') : (r as boolean);
      });
      return finish(results, items);
    };
  };
}

function toStringValue(v: unknown, path: string, op: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === undefined || v === null) return typeError(path, op, 'the argument', 'a value', v);
  return JSON.stringify(v);
}

function toInt(v: unknown, path: string, op: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Math.trunc(Number(v));
  return typeError(path, op, 'the argument', 'a number, a boolean or a numeric string', v);
}

function toFloat(v: unknown, path: string, op: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return typeError(path, op, 'the argument', 'a number or a numeric string', v);
}

function toBool(v: unknown, path: string, op: string): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  if (typeof v === 'number') return v !== 0;
  return typeError(path, op, 'the argument', 'a boolean, "true"/"false" or a number', v);
}

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Every operator of the expression language, by name. docs/declarative.md documents each. */
export const EXPRESSION_OPERATORS: ReadonlyMap<string, OperatorCompiler> = new Map<string, OperatorCompiler>([
  // ---- boolean ----
  [
    '@and',
    (arg, path, op, compile) => {
      const args = literalArgs(arg, path, op, compile, 0, Infinity);
      return (scope) => args.every((a, i) => asBool(a(scope), pathAt(path, i), op, `argument ${String(i)}`));
    },
  ],
  [
    '@or',
    (arg, path, op, compile) => {
      const args = literalArgs(arg, path, op, compile, 0, Infinity);
      return (scope) => args.some((a, i) => asBool(a(scope), pathAt(path, i), op, `argument ${String(i)}`));
    },
  ],
  ['@not', strict(undefined, (v, path, op) => !asBool(v, path, op, 'the argument'))],
  ['@eq', strict(2, (v) => jsonEqual((v as unknown[])[0], (v as unknown[])[1]))],
  ['@lt', compare((a, b) => a < b)],
  ['@lte', compare((a, b) => a <= b)],
  ['@gt', compare((a, b) => a > b)],
  ['@gte', compare((a, b) => a >= b)],
  [
    '@in',
    strict(2, (v, path, op) => {
      const [elem, list] = v as [unknown, unknown];
      return asList(list, pathAt(path, 1), op, 'argument 1').some((x) => jsonEqual(x, elem));
    }),
  ],
  ['@exists', strict(undefined, (v) => v !== undefined && v !== null)],
  ['@isnil', strict(undefined, (v) => v === undefined || v === null)],
  [
    '@selector',
    strict(2, (v, path, op) => {
      const [selector, labels] = v as [unknown, unknown];
      if (selector === undefined || selector === null || labels === undefined || labels === null)
        return false;
      return matchesLabelSelector(
        asObject(selector, pathAt(path, 0), op, 'the selector'),
        asObject(labels, pathAt(path, 1), op, 'the labels'),
        path,
      );
    }),
  ],
  // ---- conditionals ----
  [
    '@cond',
    (arg, path, op, compile) => {
      const [c, then, otherwise] = literalArgs(arg, path, op, compile, 2, 3) as [
        CompiledExpression,
        CompiledExpression,
        CompiledExpression | undefined,
      ];
      return (scope) =>
        asBool(c(scope), pathAt(path, 0), op, 'the condition') ? then(scope) : otherwise?.(scope);
    },
  ],
  [
    '@definedOr',
    (arg, path, op, compile) => {
      const [a, b] = literalArgs(arg, path, op, compile, 2) as [CompiledExpression, CompiledExpression];
      return (scope) => a(scope) ?? b(scope);
    },
  ],
  // ---- conversion ----
  ['@string', strict(undefined, (v, path, op) => toStringValue(v, path, op))],
  ['@int', strict(undefined, (v, path, op) => toInt(v, path, op))],
  ['@float', strict(undefined, (v, path, op) => toFloat(v, path, op))],
  ['@bool', strict(undefined, (v, path, op) => toBool(v, path, op))],
  [
    '@concat',
    strict(undefined, (v, path, op) =>
      asList(v, path, op, 'the argument')
        .map((x, i) => toStringValue(x, pathAt(path, i), op))
        .join(''),
    ),
  ],
  ['@hash', strict(undefined, (v) => shortHash(v))],
  ['@now', () => (scope) => rfc3339(scope.now())],
  // ---- lists and dicts ----
  [
    '@list',
    (arg, path, op, compile) => {
      if (!Array.isArray(arg)) {
        const inner = compile(arg, path);
        return (scope) => asList(inner(scope), path, op, 'the argument');
      }
      return compile(arg, path);
    },
  ],
  [
    '@dict',
    (arg, path, op, compile) => {
      const inner = compile(arg, path);
      return (scope) => asObject(inner(scope), path, op, 'the argument');
    },
  ],
  [
    '@len',
    strict(undefined, (v, path, op) => {
      if (Array.isArray(v) || typeof v === 'string') return v.length;
      if (typeof v === 'object' && v !== null) return Object.keys(v).length;
      return typeError(path, op, 'the argument', 'a list, a string or an object', v);
    }),
  ],
  [
    '@sum',
    strict(undefined, (v, path, op) =>
      asList(v, path, op, 'the argument').reduce<number>(
        (s, x, i) => s + asNumber(x, pathAt(path, i), op, `element ${String(i)}`),
        0,
      ),
    ),
  ],
  ['@map', overList((results) => results.map((r) => r()), false)],
  ['@filter', overList((results, items) => items.filter((_, i) => results[i]?.() === true))],
  ['@any', overList((results) => results.some((r) => r()))],
  ['@all', overList((results) => results.every((r) => r()))],
  ['@none', overList((results) => !results.some((r) => r()))],
  [
    '@fold',
    (arg, path, op, compile) => {
      const [fn, init, list] = literalArgs(arg, path, op, compile, 3) as [
        CompiledExpression,
        CompiledExpression,
        CompiledExpression,
      ];
      return (scope) =>
        asList(list(scope), pathAt(path, 2), op, 'the list argument').reduce<unknown>(
          (acc, item) => fn({ doc: scope.doc, subject: { acc, item }, now: scope.now }),
          init(scope),
        );
    },
  ],
  [
    '@set',
    (arg, path, op, compile) => {
      const [base, , value] = literalArgs(arg, path, op, compile, 3) as [
        CompiledExpression,
        CompiledExpression,
        CompiledExpression,
      ];
      const key = (arg as unknown[])[1];
      if (!isJsonPathString(key))
        throw new DeclarativeSpecError(
          pathAt(path, 1),
          `${op}: the path must be a literal JSONPath string such as "$.spec.x", got ${describeValue(key)}`,
        );
      let target;
      try {
        target = parseJsonPath(key);
      } catch (e) {
        throw new DeclarativeSpecError(pathAt(path, 1), (e as Error).message, { cause: e });
      }
      return (scope) => {
        const copy = structuredClone(base(scope));
        try {
          return setJsonPath(target, copy, structuredClone(value(scope)));
        } catch (e) {
          throw new ExpressionError(path, `${op}: ${(e as Error).message}`, { cause: e });
        }
      };
    },
  ],
  // ---- arithmetic ----
  ['@abs', strict(undefined, (v, path, op) => Math.abs(asNumber(v, path, op, 'the argument')))],
  ['@ceil', strict(undefined, (v, path, op) => Math.ceil(asNumber(v, path, op, 'the argument')))],
  ['@floor', strict(undefined, (v, path, op) => Math.floor(asNumber(v, path, op, 'the argument')))],
]);
