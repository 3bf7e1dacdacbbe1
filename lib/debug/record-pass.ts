import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileOutcome } from '../framework/pass-runner.js';
import { errorMessage } from '../framework/reconcile-error.js';
import type { HistoryRecorder, PassRecord } from './history-recorder.js';

/** Records one finished pass (names, result, timing and error message only). */
export function recordPass(
  history: HistoryRecorder,
  controller: string,
  key: string,
  startedAt: number,
  attempt: number,
  obj: KubernetesObject | undefined,
  outcome: ReconcileOutcome,
  nextAt: number | undefined,
): void {
  const pass: PassRecord = {
    startedAt,
    durationMs: Date.now() - startedAt,
    result: outcome.result,
    attempt,
    deleting: obj === undefined || Boolean(obj.metadata?.deletionTimestamp),
  };
  if (outcome.result === 'error') pass.error = errorMessage(outcome.error);
  if (nextAt !== undefined) pass.nextAt = nextAt;
  history.record(controller, key, pass);
}
