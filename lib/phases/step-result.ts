import { InvalidConfigError } from '../errors/invalid-config-error.js';
import type { ReconcileResult } from '../controller/reconcile-types.js';
import type { Diff, K8sDiff, StepResult } from './phase-types.js';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** A step's return value as a result, or an {@link InvalidConfigError} naming the step and what to return. */
export function checkStep(value: unknown, step: string): ReconcileResult | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidConfigError(
      `${step} returned ${describe(value)}; return nothing, or { requeueAfterMs?: number }`,
    );
  }
  const ms = (value as { requeueAfterMs?: unknown }).requeueAfterMs;
  if (ms !== undefined && (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)) {
    throw new InvalidConfigError(
      `${step} returned requeueAfterMs ${JSON.stringify(ms)}; it must be a finite number of milliseconds >= 0`,
    );
  }
  return value;
}

/** Whether `result` ends the pass (a requeue was asked for). */
export function stops(result: StepResult): result is ReconcileResult & { requeueAfterMs: number } {
  return result?.requeueAfterMs !== undefined;
}

function flags(value: unknown, keys: readonly string[], step: string): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  for (const key of keys) {
    if (v[key] !== undefined && typeof v[key] !== 'boolean') {
      throw new InvalidConfigError(
        `${step} returned ${key} of type ${describe(v[key])}; it must be a boolean`,
      );
    }
  }
  if (v.diff !== undefined && typeof v.diff !== 'string') {
    throw new InvalidConfigError(`${step} returned diff of type ${describe(v.diff)}; it must be a string`);
  }
  return keys.some((k) => k in v) || 'diff' in v;
}

const K8S_FLAGS = ['needCreate', 'needUpdate', 'needDelete'] as const;

/** A phase's `diff` return value: a {@link K8sDiff}, or `{ diff, result }`. */
export function checkK8sDiff(
  value: unknown,
  step: string,
): { diff: K8sDiff; result: ReconcileResult | undefined } {
  const v = value as { diff?: unknown; result?: unknown } | null | undefined;
  if (typeof v === 'object' && v !== null && typeof v.diff === 'object' && v.diff !== null) {
    if (!flags(v.diff, K8S_FLAGS, step)) throw badDiff(value, step, 'needCreate/needUpdate/needDelete');
    return { diff: v.diff, result: checkStep(v.result, `${step} (result)`) };
  }
  if (!flags(v, K8S_FLAGS, step)) throw badDiff(value, step, 'needCreate/needUpdate/needDelete');
  return { diff: v as K8sDiff, result: undefined };
}

/** A remote resource's `diff` return value. */
export function checkDiff(value: unknown, step: string): Diff {
  if (!flags(value, ['needCreate', 'needUpdate'], step)) throw badDiff(value, step, 'needCreate/needUpdate');
  return value as Diff;
}

function badDiff(value: unknown, step: string, names: string): InvalidConfigError {
  return new InvalidConfigError(
    `${step} returned ${value === undefined ? 'nothing' : JSON.stringify(value)}; return { ${names}: boolean, diff?: string }`,
  );
}
