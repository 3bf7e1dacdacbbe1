import { isJsonObject, jsonEqual } from '../patch/json-value.js';

/**
 * The JSONPath subset CRD printer columns use: `.a.b`, `['a.b']`, `[0]`, `[-1]`, `[*]`, `.*` and filters
 * `[?(@.type=="Ready")]` (==, !=, <, >, <=, >= against a quoted string or a number, or `[?(@.x)]` for
 * existence); an optional surrounding `{…}`. Returns every match, in order; no match → [].
 */
export function evaluateJsonPath(value: unknown, expression: string): unknown[] {
  let expr = expression.trim();
  if (expr.startsWith('{') && expr.endsWith('}')) expr = expr.slice(1, -1).trim();
  if (expr.startsWith('$')) expr = expr.slice(1);
  let current: unknown[] = [value];
  let i = 0;
  while (i < expr.length && current.length > 0) {
    const c = expr.charAt(i);
    if (c === '.') {
      let j = i + 1;
      while (j < expr.length && expr.charAt(j) !== '.' && expr.charAt(j) !== '[') j++;
      const name = expr.slice(i + 1, j);
      if (name !== '') current = current.flatMap((v) => member(v, name));
      i = j;
    } else if (c === '[') {
      const end = findClosingBracket(expr, i);
      current = current.flatMap((v) => subscript(v, expr.slice(i + 1, end).trim()));
      i = end + 1;
    } else {
      throw new Error(`unsupported JSONPath "${expression}" at ${i}`);
    }
  }
  return current;
}

function findClosingBracket(expr: string, start: number): number {
  let quote: string | undefined;
  let depth = 0;
  for (let i = start; i < expr.length; i++) {
    const c = expr.charAt(i);
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '[' || c === '(') {
      depth++;
    } else if (c === ']' || c === ')') {
      depth--;
      if (depth === 0 && c === ']') return i;
    }
  }
  throw new Error(`unclosed "[" in JSONPath "${expr}"`);
}

function member(value: unknown, name: string): unknown[] {
  if (name === '*') {
    if (Array.isArray(value)) return value;
    return isJsonObject(value) ? Object.values(value) : [];
  }
  return isJsonObject(value) && Object.hasOwn(value, name) && value[name] !== undefined ? [value[name]] : [];
}

function unquote(text: string): string | undefined {
  const m = /^(['"])(.*)\1$/.exec(text);
  return m ? m[2] : undefined;
}

function subscript(value: unknown, inner: string): unknown[] {
  if (inner === '*') return member(value, '*');
  const quoted = unquote(inner);
  if (quoted !== undefined) return member(value, quoted);
  if (inner.startsWith('?(') && inner.endsWith(')')) {
    const filter = inner.slice(2, -1).trim();
    return Array.isArray(value) ? value.filter((item) => matchesFilter(item, filter)) : [];
  }
  if (/^-?\d+$/.test(inner) && Array.isArray(value)) {
    const index = Number(inner);
    const item: unknown = value[index < 0 ? value.length + index : index];
    return item === undefined ? [] : [item];
  }
  return [];
}

const FILTER = /^@((?:\.[^.=!<>\s]+)+)\s*(?:(==|!=|<=|>=|<|>)\s*(.+))?$/;

function matchesFilter(item: unknown, filter: string): boolean {
  const m = FILTER.exec(filter);
  if (!m) throw new Error(`unsupported JSONPath filter "${filter}"`);
  const [, path = '', operator, rawOperand] = m;
  const actual = evaluateJsonPath(item, path)[0];
  if (operator === undefined) return actual !== undefined;
  const operand = parseOperand((rawOperand ?? '').trim());
  switch (operator) {
    case '==':
      return jsonEqual(actual, operand);
    case '!=':
      return !jsonEqual(actual, operand);
    default:
      return typeof actual === 'number' && typeof operand === 'number' && compare(actual, operand, operator);
  }
}

function parseOperand(text: string): unknown {
  const quoted = unquote(text);
  if (quoted !== undefined) return quoted;
  if (text === 'true' || text === 'false') return text === 'true';
  const n = Number(text);
  return Number.isNaN(n) ? text : n;
}

function compare(a: number, b: number, operator: string): boolean {
  if (operator === '<') return a < b;
  if (operator === '>') return a > b;
  if (operator === '<=') return a <= b;
  return a >= b;
}
