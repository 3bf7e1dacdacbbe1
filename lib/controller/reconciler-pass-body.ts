import type { KubernetesObject } from '@kubernetes/client-node';
import { noteFailureSite } from '../errors/failure-site.js';
import type { ReconcileContext } from '../context/reconcile-context.js';
import type { PassBody, PassInfo, PassPlan, PassVerdict } from '../engine/pass-body.js';
import { isThenable, type StepFlow } from '../util/maybe-async.js';
import { isReconcileError } from './reconcile-error.js';
import type {
  ReconcileAction,
  ReconcileFunction,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from './reconcile-types.js';

const DONE: PassVerdict = Object.freeze({ kind: 'done' });

/** What this process last reconciled for a key. */
interface Seen {
  uid: string | undefined;
  resourceVersion: string | undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** The reconciler's return value as a result, or a TypeError saying what to return instead. */
export function checkResult(value: unknown, fn: string): ReconcileResult | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(
      `${fn} returned ${describe(value)}; return nothing, or { requeueAfterMs?: number, state?: object }`,
    );
  }
  const { requeueAfterMs, state } = value as Record<string, unknown>;
  if (
    requeueAfterMs !== undefined &&
    (typeof requeueAfterMs !== 'number' || !Number.isFinite(requeueAfterMs) || requeueAfterMs < 0)
  ) {
    throw new TypeError(
      `${fn} returned requeueAfterMs ${typeof requeueAfterMs === 'number' ? requeueAfterMs : typeof requeueAfterMs}; it must be a finite number of milliseconds >= 0`,
    );
  }
  if (state !== undefined && (typeof state !== 'object' || state === null || Array.isArray(state))) {
    throw new TypeError(`${fn} returned state of type ${describe(state)}; it must be a plain object`);
  }
  return value;
}

/**
 * The reconcile-function front end's part of a pass (`Controller`): builds the {@link ReconcileRequest}
 * (action, latest object, key, state, attempt), calls `reconcile` or `cleanup`, and turns what it
 * returned or threw into the core's verdict. Keeps per key only what must survive a pass: the state of a
 * failed or requeued call, and the UID and resourceVersion last reconciled (for `action`).
 */
export class ReconcilerPassBody<Obj extends KubernetesObject> implements PassBody<Obj> {
  private readonly states = new Map<string, Record<string, unknown>>();
  private readonly seen = new Map<string, Seen>();

  constructor(private readonly reconciler: Reconciler<Obj>) {}

  plan(_obj: Obj, info: PassInfo): PassPlan<Obj> {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the plan's methods call back into the body
    const body = this;
    return {
      apply(ctx, o) {
        return body.call(ctx, o, info, body.actionOf(info.key, o), 'reconcile');
      },
      cleanup(ctx, o) {
        const fn = body.reconciler.cleanup === undefined ? 'reconcile' : 'cleanup';
        return body.call(ctx, o, info, 'deleted', fn);
      },
    };
  }

  forget(key: string): void {
    this.states.delete(key);
    this.seen.delete(key);
  }

  private actionOf(key: string, obj: Obj): ReconcileAction {
    const seen = this.seen.get(key);
    if (seen === undefined || seen.uid !== obj.metadata?.uid) return 'created';
    return seen.resourceVersion === obj.metadata?.resourceVersion ? 'resynced' : 'updated';
  }

  private *call(
    ctx: ReconcileContext,
    obj: Obj,
    info: PassInfo,
    action: ReconcileAction,
    fn: 'reconcile' | 'cleanup',
  ): StepFlow<PassVerdict> {
    const key = info.key;
    const request: ReconcileRequest<Obj> = {
      action,
      object: obj,
      key,
      state: this.states.get(key),
      attempt: info.attempt,
    };
    let result: ReconcileResult | undefined;
    try {
      const call = (this.reconciler[fn] as ReconcileFunction<Obj>).call(this.reconciler, ctx, request);
      result = checkResult(isThenable(call) ? yield call : call, `reconciler.${fn}`);
    } catch (err) {
      noteFailureSite(err, { step: fn });
      if (isReconcileError(err)) {
        // Without `state` the error keeps the state the call was given, as any other failure does.
        if (err.state !== undefined) this.states.set(key, err.state);
        if (
          err.requeueAfterMs !== undefined &&
          Number.isFinite(err.requeueAfterMs) &&
          err.requeueAfterMs >= 0
        ) {
          info.logger.debug('reconcile error with requeueAfterMs: requeued, not counted as a failure', {
            reason: err.message,
          });
          return { kind: 'requeueAfter', delayMs: err.requeueAfterMs };
        }
      }
      throw err;
    }
    this.seen.set(key, { uid: obj.metadata?.uid, resourceVersion: obj.metadata?.resourceVersion });
    if (result?.requeueAfterMs !== undefined) {
      this.keepState(key, result.state);
      return { kind: 'requeueAfter', delayMs: result.requeueAfterMs };
    }
    this.states.delete(key);
    return DONE;
  }

  private keepState(key: string, state: Record<string, unknown> | undefined): void {
    if (state === undefined) this.states.delete(key);
    else this.states.set(key, state);
  }
}
