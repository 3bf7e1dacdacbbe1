import type { KubernetesObject } from '@kubernetes/client-node';
import { errorMessage } from '../errors/error-message.js';
import type { PassTrace } from '../context/pass-trace.js';
import type { HistoryRecorder, PassRecord } from './history-recorder.js';
import type { PassTrigger } from './pass-trigger.js';

/**
 * What the live view keeps of a pass's outcome: its result and, for a failure, the error. The engine's
 * outcome type fits it structurally, so the live view needs nothing from the engine.
 */
export interface RecordedOutcome {
  readonly result: string;
  readonly error?: unknown;
}

/** Records one finished pass (names, result, timing, trigger, step durations, error message only). */
export function recordPass(
  history: HistoryRecorder,
  controller: string,
  key: string,
  startedAt: number,
  attempt: number,
  obj: KubernetesObject | undefined,
  outcome: RecordedOutcome,
  nextAt: number | undefined,
  trigger: PassTrigger,
  trace: PassTrace | undefined,
): void {
  const pass: PassRecord = {
    startedAt,
    durationMs: Date.now() - startedAt,
    result: outcome.result,
    attempt,
    deleting: obj === undefined || Boolean(obj.metadata?.deletionTimestamp),
    trigger,
  };
  if (outcome.result === 'error') pass.error = errorMessage(outcome.error);
  if (nextAt !== undefined) pass.nextAt = nextAt;
  if (trace !== undefined && trace.resources.length > 0) pass.resources = trace.resources;
  history.record(controller, key, pass);
}

/** The live view's copy of a posted Event: type, reason, message and the involved object's name only. */
export function debugEvent(
  obj: KubernetesObject,
  event: { type: string; reason: string; message: string },
): { type: string; reason: string; message: string; object: string } {
  const name = obj.metadata?.name ?? '';
  const ns = obj.metadata?.namespace;
  const ref = ns === undefined || ns === '' ? name : `${ns}/${name}`;
  return {
    type: event.type,
    reason: event.reason,
    message: event.message,
    object: `${obj.kind ?? 'object'} ${ref}`,
  };
}
