import { ConditionLockedError } from '../errors/condition-locked-error.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { isStaleObject } from '../errors/stale-object-error.js';
import type { Awaitable } from '../util/awaitable.js';
import type { StatusCondition, StatusConditionInput } from '../status/status-conditions.js';
import {
  boundConditionMessage,
  boundConditionReason,
  isValidConditionReason,
} from '../status/condition-names.js';
import { ERROR_REASON, LOCKED_REASON } from './defaults.js';

/**
 * What a guarded task resolves to: the bound condition's new status, reason and optional message.
 * @category Phases, status and guards
 */
export interface GuardTaskResult {
  status: StatusCondition['status'];
  /** CamelCase reason (e.g. `Created`); an invalid or over-long one is made valid (see `boundConditionReason`). */
  reason: string;
  message?: string;
}

/**
 * The side effect `guard` protects; receives the pass's AbortSignal.
 * @category Phases, status and guards
 */
export type GuardTask = (signal: AbortSignal) => Awaitable<GuardTaskResult>;

/**
 * Per-call options of `guard`.
 * @category Phases, status and guards
 */
export interface GuardOptions {
  /** Age after which a held lock is taken over. Default: the bound object's (`DEFAULT_GUARD_LOCK_TTL_MS`). */
  lockTtlMs?: number;
  /** Retry delay reported by `ConditionLockedError`. Default: the bound object's (`DEFAULT_LOCKED_REQUEUE_MS`). */
  lockedRequeueMs?: number;
}

/** Whether `condition` is a guard lock. */
export function isLock(condition: StatusCondition | undefined): condition is StatusCondition {
  return condition?.status === 'Unknown' && condition.reason === LOCKED_REASON;
}

/**
 * Throws {@link ConditionLockedError} when `condition` is a lock younger than `ttlMs` at `now`; returns
 * the expired lock (to be taken over) or undefined when there is no lock. A lock with an unreadable
 * transition time counts as expired (it cannot be proven fresh, and a stuck lock is the worse failure).
 */
export function checkLock(
  condition: StatusCondition | undefined,
  now: Date,
  ttlMs: number,
  requeueMs: number,
): StatusCondition | undefined {
  if (!isLock(condition)) return undefined;
  const since = Date.parse(condition.lastTransitionTime);
  const age = Number.isNaN(since) ? Number.POSITIVE_INFINITY : now.getTime() - since;
  if (age >= ttlMs) return condition;
  throw new ConditionLockedError({
    conditionType: condition.type,
    since: condition.lastTransitionTime,
    holder: condition.message,
    retryAfterMs: Math.max(1, Math.min(requeueMs, ttlMs - Math.max(0, age))),
  });
}

/** The task's thrown value as an Error (a thrown string or object is wrapped, never lost). */
export function taskError(thrown: unknown, reason: string): Error {
  if (thrown instanceof Error) return thrown;
  let text: string;
  try {
    const json = JSON.stringify(thrown) as string | undefined;
    text = typeof thrown === 'string' ? thrown : (json ?? typeof thrown);
  } catch {
    text = Object.prototype.toString.call(thrown);
  }
  return new Error(`guarded task '${reason}' threw a non-Error value: ${text}`, { cause: thrown });
}

/** The condition a task's failure leaves: False/`Error` with the (bounded) error text. */
export function failedCondition(
  type: string,
  error: Error,
  generation: number | undefined,
): StatusConditionInput {
  return withGeneration(
    {
      type,
      status: 'False',
      reason: ERROR_REASON,
      message: boundConditionMessage(error.message === '' ? error.name : error.message),
    },
    generation,
  );
}

/**
 * The condition a task's result asks for, validated: anything but `{ status: True|False|Unknown, reason }`
 * is an {@link InvalidConfigError} (handled as a task failure, so the lock is released); an invalid or
 * over-long reason is made valid rather than failing the write that releases the lock.
 */
export function resultCondition(
  type: string,
  result: unknown,
  reason: string,
  generation: number | undefined,
): { condition: StatusConditionInput; adjustedReason: boolean } {
  const r = result as Partial<GuardTaskResult> | null | undefined;
  if (
    typeof r !== 'object' ||
    r === null ||
    (r.status !== 'True' && r.status !== 'False' && r.status !== 'Unknown')
  ) {
    throw new InvalidConfigError(
      `guarded task '${reason}' must resolve to { status: 'True' | 'False' | 'Unknown', reason: string }, ` +
        `got ${r === undefined ? 'undefined (did it forget to return?)' : JSON.stringify(r)}`,
    );
  }
  if (r.status === 'Unknown' && r.reason === LOCKED_REASON) {
    throw new InvalidConfigError(
      `guarded task '${reason}' resolved to Unknown/${LOCKED_REASON}, which would look like a held lock; use another reason`,
    );
  }
  const fallback = r.status === 'True' ? 'Succeeded' : r.status === 'False' ? 'Failed' : 'InProgress';
  const bounded = boundConditionReason(r.reason, fallback);
  const condition: StatusConditionInput = {
    type,
    status: r.status,
    reason: bounded,
    message: boundConditionMessage(r.message ?? ''),
  };
  return {
    condition: withGeneration(condition, generation),
    adjustedReason: !isValidConditionReason(r.reason),
  };
}

/** The lock condition: Unknown/`Locked`, message = the guard's reason, taken `now`. */
export function lockCondition(
  type: string,
  reason: string,
  now: Date,
  generation: number | undefined,
): StatusCondition {
  return withGeneration(
    {
      type,
      status: 'Unknown',
      reason: LOCKED_REASON,
      message: boundConditionMessage(reason),
      lastTransitionTime: rfc3339(now),
    },
    generation,
  );
}

/** Whether `current` is still the lock `ours` (same holder message and time). */
export function stillOurs(current: StatusCondition | undefined, ours: StatusCondition): boolean {
  return (
    isLock(current) &&
    current.message === ours.message &&
    current.lastTransitionTime === ours.lastTransitionTime
  );
}

/** Whether a release write may be retried on a fresh read (a 409 on our own locked object). */
export function retriableRelease(err: unknown): boolean {
  return isStaleObject(err);
}

/** RFC 3339 with second precision, as the API server stores times. */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function withGeneration<C extends StatusConditionInput>(condition: C, generation: number | undefined): C {
  if (generation !== undefined) condition.observedGeneration = generation;
  return condition;
}
