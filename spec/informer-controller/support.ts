import {
  createLogger,
  InformerController,
  type InformerControllerOptions,
  type ReconcileRequest,
} from '../../lib/index.js';
import { WIDGET, type Harness, type Widget } from '../crud/harness.js';

export { eventually, startHarness, widget, ref, WIDGET, type Harness, type Widget } from '../crud/harness.js';

/** The Widget source every spec watches. */
export const SOURCE = { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, plural: WIDGET.plural };

/** One recorded handler call. */
export interface Call {
  who: string;
  action: string;
  name: string | undefined;
  version: string | undefined;
  oldVersion?: string | undefined;
  state?: unknown;
  attempt?: number;
  at: number;
}

export function recordReq(calls: Call[], who: string, req: ReconcileRequest): void {
  calls.push({
    who,
    action: req.action,
    name: req.object.metadata?.name,
    version: req.object.metadata?.resourceVersion,
    state: req.state,
    attempt: req.attempt,
    at: Date.now(),
  });
}

/** A controller on the harness's server with the Widget source for kind `widgets`, not started. */
export function makeController(
  h: Harness,
  extra: InformerControllerOptions = {},
  list: InformerController[] = [],
): InformerController {
  const c = new InformerController({
    kubeConfig: h.kubeConfig,
    logger: createLogger({ silent: true }),
    minReconcileIntervalMs: 0,
    ...extra,
  });
  list.push(c);
  return c;
}

export type { Widget as W };
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
