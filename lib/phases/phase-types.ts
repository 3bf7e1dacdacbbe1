import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileContext } from '../context/reconcile-context.js';
import type { ReconcileRequest, ReconcileResult } from '../controller/reconcile-types.js';
import type { Awaitable } from '../util/awaitable.js';

/**
 * What a step returns: nothing (go on), or a {@link ReconcileResult}. A result with `requeueAfterMs` ends
 * the pass there and runs the object again after that delay (Go's non-empty `ctrl.Result`).
 * @category Phases, status and guards
 */
export type StepResult = ReconcileResult | undefined | void; // eslint-disable-line @typescript-eslint/no-invalid-void-type -- a step with no return goes on

/**
 * A phase's verdict on its Kubernetes children (operator-sdk-extra's `K8sDiff`). Missing flags count as false.
 * @category Phases, status and guards
 */
export interface K8sDiff {
  needCreate?: boolean;
  needUpdate?: boolean;
  needDelete?: boolean;
  /** Human-readable description of the difference (logged at debug). */
  diff?: string;
}

/**
 * A remote resource's verdict (operator-sdk-extra's `Diff`). Missing flags count as false.
 * @category Phases, status and guards
 */
export interface Diff {
  needCreate?: boolean;
  needUpdate?: boolean;
  diff?: string;
}

/**
 * The per-pass working map steps share (operator-sdk-extra's `data map[string]any`).
 * @category Phases, status and guards
 */
export type Data = Map<string, unknown>;

/**
 * One phase of a {@link StdK8sReconciler} (operator-sdk-extra's `K8sPhaseReconciler`): configure → read → diff →
 * create / update / delete as the diff says → onSuccess. Only `name` and `diff` are required.
 * @category Phases, status and guards
 */
export interface K8sPhaseReconciler<Obj extends KubernetesObject = KubernetesObject> {
  /** Names the phase in errors and logs (seed `GetName`). */
  readonly name: string;
  configure?(ctx: ReconcileContext, req: ReconcileRequest<Obj>, obj: Obj): Awaitable<StepResult>;
  read?(ctx: ReconcileContext, obj: Obj, data: Data): Awaitable<StepResult>;
  /** The diff, or `{ diff, result }` where `result.requeueAfterMs` ends the pass before any write. */
  diff(
    ctx: ReconcileContext,
    obj: Obj,
    data: Data,
  ): Awaitable<K8sDiff | { diff: K8sDiff; result?: StepResult }>;
  create?(ctx: ReconcileContext, obj: Obj, data: Data): Awaitable<StepResult>;
  update?(ctx: ReconcileContext, obj: Obj, data: Data): Awaitable<StepResult>;
  delete?(ctx: ReconcileContext, obj: Obj, data: Data): Awaitable<StepResult>;
  /**
   * A step of this phase failed. Return → the error is handled and the next phase runs (seed semantics);
   * throw → the pass fails through the parent's `onError`. Default: rethrow.
   */
  onError?(ctx: ReconcileContext, obj: Obj, data: Data, error: unknown): Awaitable<StepResult>;
  onSuccess?(ctx: ReconcileContext, obj: Obj, data: Data, diff: K8sDiff): Awaitable<StepResult>;
}

/**
 * The parent hooks of a {@link StdK8sReconciler} (operator-sdk-extra's `K8sReconciler`); all optional.
 * @category Phases, status and guards
 */
export interface K8sReconcilerHooks<Obj extends KubernetesObject = KubernetesObject> {
  configure?(ctx: ReconcileContext, req: ReconcileRequest<Obj>, obj: Obj): Awaitable<StepResult>;
  read?(ctx: ReconcileContext, obj: Obj, data: Data): Awaitable<StepResult>;
  /** Runs while the object is being deleted; defining it makes the engine manage a finalizer. */
  delete?(ctx: ReconcileContext, obj: Obj, data: Data): Awaitable<void>;
  /** The pass failed. Return → handled (the result is the pass's); throw → the pass fails. Default: rethrow. */
  onError?(ctx: ReconcileContext, obj: Obj, data: Data, error: unknown): Awaitable<StepResult>;
  onSuccess?(ctx: ReconcileContext, obj: Obj, data: Data): Awaitable<StepResult>;
}

/**
 * The hooks of a {@link StdReconciler} for a remote (non-Kubernetes) resource (operator-sdk-extra's `Reconciler`).
 * `read` and `diff` are required; `create`/`update` are required once a diff asks for them.
 * @category Phases, status and guards
 */
export interface RemoteResourceHooks<Obj extends KubernetesObject = KubernetesObject, Meta = unknown> {
  /** Builds what the other hooks need (an API client, say). Default: `undefined`. */
  configure?(ctx: ReconcileContext, req: ReconcileRequest<Obj>, obj: Obj): Awaitable<Meta>;
  /** Reads the remote state into `data`. */
  read(ctx: ReconcileContext, obj: Obj, data: Data, meta: Meta): Awaitable<StepResult>;
  diff(obj: Obj, data: Data, meta: Meta): Awaitable<Diff>;
  create?(ctx: ReconcileContext, obj: Obj, data: Data, meta: Meta): Awaitable<StepResult>;
  update?(ctx: ReconcileContext, obj: Obj, data: Data, meta: Meta): Awaitable<StepResult>;
  /** Deletes the remote resource while the object is being deleted; defining it makes the engine manage a finalizer. */
  delete?(ctx: ReconcileContext, obj: Obj, data: Data, meta: Meta): Awaitable<void>;
  /** Called on every failure (the seed's version never was); the error is then rethrown. */
  onError?(
    ctx: ReconcileContext,
    obj: Obj,
    data: Data,
    meta: Meta | undefined,
    error: unknown,
  ): Awaitable<void>;
  onSuccess?(ctx: ReconcileContext, obj: Obj, data: Data, meta: Meta, diff: Diff): Awaitable<void>;
}
