import { createHash } from 'node:crypto';
import { describeValue, ExpressionError } from './declarative-spec-error.js';
import type { LabelSelectorSpec } from './operator-spec.js';

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k], bo[k]));
}

/** JSON with sorted keys, so equal values hash equally. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/** dcontroller's `@hash`: the MD5 of the value's JSON in base 36, first 6 characters (padded with `x`). */
export function shortHash(value: unknown): string {
  const hex = createHash('md5').update(canonicalJson(value)).digest('hex');
  return BigInt(`0x${hex}`).toString(36).slice(0, 6).padEnd(6, 'x');
}

/** Throws an {@link ExpressionError} for a value of the wrong type: `@op: what must be expected, got …`. */
export function typeError(path: string, op: string, what: string, expected: string, value: unknown): never {
  throw new ExpressionError(path, `${op}: ${what} must be ${expected}, got ${describeValue(value)}`);
}

/** The value as a boolean, or a located type error. */
export function asBool(value: unknown, path: string, op: string, what: string): boolean {
  if (typeof value === 'boolean') return value;
  return typeError(path, op, what, 'a boolean', value);
}

/** The value as a finite number, or a located type error. */
export function asNumber(value: unknown, path: string, op: string, what: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return typeError(path, op, what, 'a number', value);
}

/** The value as a list, or a located type error. */
export function asList(value: unknown, path: string, op: string, what: string): unknown[] {
  if (Array.isArray(value)) return value as unknown[];
  return typeError(path, op, what, 'a list', value);
}

/** The value as a plain object, or a located type error. */
export function asObject(value: unknown, path: string, op: string, what: string): Record<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return value as Record<string, unknown>;
  return typeError(path, op, what, 'an object', value);
}

/** A list of exactly `n` values, or a located error. */
export function asTuple(value: unknown, n: number, path: string, op: string): unknown[] {
  const list = asList(value, path, op, 'the argument');
  if (list.length !== n) {
    throw new ExpressionError(path, `${op}: expected ${String(n)} arguments, got ${String(list.length)}`);
  }
  return list;
}

/** Whether `labels` match a Kubernetes label selector (matchLabels and matchExpressions, all must hold). */
export function matchesLabelSelector(
  selector: LabelSelectorSpec,
  labels: Readonly<Record<string, unknown>>,
  path: string,
): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const [n, expr] of (selector.matchExpressions ?? []).entries()) {
    const has = Object.hasOwn(labels, expr.key);
    const value = labels[expr.key];
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
        if (!has || !values.includes(String(value))) return false;
        break;
      case 'NotIn':
        if (has && values.includes(String(value))) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        throw new ExpressionError(
          path,
          `matchExpressions[${String(n)}].operator must be In, NotIn, Exists or DoesNotExist, got ${describeValue(expr.operator)}`,
        );
    }
  }
  return true;
}
