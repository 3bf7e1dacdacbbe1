import { DeclarativeSpecError, describeValue, ExpressionError, pathAt } from './declarative-spec-error.js';
import { EXPRESSION_OPERATORS } from './expression-operators.js';
import {
  getJsonPath,
  isJsonPathString,
  JsonPathSyntaxError,
  parseJsonPath,
  setJsonPath,
  type JsonPath,
} from './json-path.js';
import type { Expression } from './operator-spec.js';
import { checkSpecShape } from './spec-shape.js';

/** What an expression is evaluated against. */
export interface EvaluationScope {
  /** `$`: the document (a source object, or the joined `{ <Kind>: object, … }`). */
  readonly doc: unknown;
  /** `$$`: the current element inside `@map`, `@filter`, `@any`, `@all`, `@none`, `@fold`. */
  readonly subject: unknown;
  /** The clock of `@now`. */
  readonly now: () => Date;
}

/** An expression checked and turned into a function; throws {@link ExpressionError} on bad data. */
export type CompiledExpression = (scope: EvaluationScope) => unknown;

/** Parses a JSONPath inside a spec, turning a syntax error into a located {@link DeclarativeSpecError}. */
export function compileJsonPath(text: string, path: string): JsonPath {
  try {
    return parseJsonPath(text);
  } catch (e) {
    if (e instanceof JsonPathSyntaxError) throw new DeclarativeSpecError(path, e.message, { cause: e });
    throw e;
  }
}

/** Reads a compiled path against the scope (`$$` falls back to `$` outside a list operator, as upstream). */
export function readPath(jp: JsonPath, scope: EvaluationScope): unknown {
  return getJsonPath(jp, jp.root === '$$' && scope.subject !== undefined ? scope.subject : scope.doc);
}

/**
 * Checks an expression once (unknown operators, malformed JSONPaths, wrong argument counts are located
 * {@link DeclarativeSpecError}s naming `path`) and returns the function that evaluates it.
 *
 * Reading rules: a string starting with `$` is a JSONPath; any other scalar is itself; a list evaluates each
 * element; an object with one key starting with `@` is an operator; any other object is a dict literal whose
 * values are evaluated, and whose keys starting with `$` are paths to set (`{"$.metadata.name": "x"}`).
 * A value that evaluates to nothing (a missing path) leaves its dict key out.
 */
export function compileExpression(expr: Expression, path: string): CompiledExpression {
  if (typeof expr === 'string') {
    if (!isJsonPathString(expr)) return () => expr;
    const jp = compileJsonPath(expr, path);
    return (scope) => readPath(jp, scope);
  }
  if (expr === null || typeof expr === 'number' || typeof expr === 'boolean') return () => expr;
  if (Array.isArray(expr)) {
    const items = expr.map((e, i) => compileExpression(e, pathAt(path, i)));
    return (scope) => items.map((item) => item(scope));
  }
  if (typeof expr === 'object') {
    const keys = Object.keys(expr);
    const ops = keys.filter((k) => k.startsWith('@'));
    if (ops.length > 0) {
      const op = ops[0] ?? '';
      if (keys.length !== 1) {
        throw new DeclarativeSpecError(
          path,
          `an operator object must have exactly one key, found ${keys.map((k) => `'${k}'`).join(', ')}; wrap literal dicts in {'@dict': …}`,
        );
      }
      const compile = EXPRESSION_OPERATORS.get(op);
      if (compile === undefined) {
        throw new DeclarativeSpecError(
          pathAt(path, op),
          `unknown operator '${op}'; known operators: ${[...EXPRESSION_OPERATORS.keys()].join(' ')}`,
        );
      }
      return compile((expr as Record<string, unknown>)[op], pathAt(path, op), op, compileExpression);
    }
    return compileDict(expr as Record<string, unknown>, path);
  }
  throw new DeclarativeSpecError(path, `not a JSON value: ${describeValue(expr)}`);
}

/** A dict literal: values evaluated, `$…` keys set as paths (`$.` merges an object into the result). */
export function compileDict(dict: Record<string, unknown>, path: string): CompiledExpression {
  const entries = Object.entries(dict).map(([key, value]) => {
    const at = pathAt(path, key);
    return {
      key,
      target: isJsonPathString(key) ? compileJsonPath(key, at) : undefined,
      value: compileExpression(value, at),
      at,
    };
  });
  for (const e of entries) {
    if (e.target?.root === '$$' || e.target?.multi === true) {
      throw new DeclarativeSpecError(e.at, 'a key path must start with "$." and hold no wildcard');
    }
  }
  return (scope) => {
    let out: Record<string, unknown> = {};
    for (const e of entries) {
      const v = e.value(scope);
      if (v === undefined) continue;
      if (e.target === undefined) out[e.key] = v;
      else if (e.target.segments.length === 0) {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) {
          throw new ExpressionError(e.at, `only an object can be set at '${e.key}', got ${describeValue(v)}`);
        }
        out = { ...out, ...structuredClone(v) };
      } else {
        try {
          setJsonPath(e.target, out, structuredClone(v));
        } catch (err) {
          throw new ExpressionError(e.at, (err as Error).message, { cause: err });
        }
      }
    }
    return out;
  };
}

/**
 * Options of {@link evaluateExpression}.
 * @category Declarative operators
 */
export interface EvaluateExpressionOptions {
  /** `$$` for a list operator's element. Default: none. */
  subject?: unknown;
  /** The clock of `@now`. Default: `() => new Date()`. */
  now?: () => Date;
}

/**
 * Evaluates a declarative expression against `document` (dcontroller's expression language; see
 * docs/declarative.md for every operator). Throws {@link DeclarativeSpecError} for a malformed expression
 * and {@link ExpressionError} for a type error in the data, both naming where (`expression['@and'][1]`).
 * @category Declarative operators
 */
export function evaluateExpression(
  expression: Expression,
  document: unknown,
  options: EvaluateExpressionOptions = {},
): unknown {
  checkSpecShape(expression, 'expression');
  const compiled = compileExpression(expression, 'expression');
  return compiled({ doc: document, subject: options.subject, now: options.now ?? (() => new Date()) });
}
