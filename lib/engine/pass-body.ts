import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileContext } from '../context/reconcile-context.js';
import type { Logger } from '../observability/logger.js';
import type { StepFlow } from '../util/maybe-async.js';

/**
 * How a front end's part of a pass ended (errors are thrown instead):
 * - `done`: success; on the delete path the engine then removes its finalizer.
 * - `requeueAfter`: success, run the key again after `delayMs` (on the delete path: keep the finalizer).
 * - `keepFinalizer`: not a failure, but not finished either (CRUD `finalizersKept`/`reconciliationCanceled`):
 *   the finalizer stays and the key runs again with the per-key backoff (`result="requeue"`).
 * @category Engine: Framework and ControllerCore
 */
export type PassVerdict =
  { kind: 'done' } | { kind: 'requeueAfter'; delayMs: number } | { kind: 'keepFinalizer' };

/**
 * What the engine knows about the pass it asks a front end to plan.
 * @category Engine: Framework and ControllerCore
 */
export interface PassInfo {
  /** Work-queue key (`namespace/name`). */
  readonly key: string;
  /** The object is being deleted (deletionTimestamp set) or gone. */
  readonly deleting: boolean;
  /** The object is gone from the server (its last known state is passed). */
  readonly gone: boolean;
  /** Failed passes in a row for this key since its last success or change (0 on a fresh call). */
  readonly attempt: number;
  /** The pass's logger (controller, object, event, loop, version). */
  readonly logger: Logger;
}

/**
 * The front end's part of one pass over one object, planned by {@link PassBody.plan}.
 * @category Engine: Framework and ControllerCore
 */
export interface PassPlan<Obj extends KubernetesObject> {
  /** Runs first, with the pass's context (CRUD: flags and `initCtx`). Optional. */
  prepare?(ctx: ReconcileContext, obj: Obj): StepFlow<void>;
  /** The update path, after the engine made sure its finalizer is on the object. */
  apply(ctx: ReconcileContext, obj: Obj): StepFlow<PassVerdict>;
  /** The delete path; with a finalizer, the engine removes it after `done`. */
  cleanup(ctx: ReconcileContext, obj: Obj): StepFlow<PassVerdict>;
}

/**
 * What a front end plugs into the controller core (see docs/architecture.md). The core owns everything
 * around it — watches, cache, queue, workers, leadership, pause, finalizer add/remove, deletion memory,
 * timeout, logging, metrics, Warning Events, the error condition, retries — and calls the body once per
 * pass. Bodies return step flows (`lib/util/maybe-async.ts`) so a pass without I/O costs no microtask.
 * @category Engine: Framework and ControllerCore
 */
export interface PassBody<Obj extends KubernetesObject> {
  /**
   * The plan for this pass over `obj`, or undefined when the object is not this front end's (no
   * finalizer is added, the pass succeeds quietly). May throw: the pass fails with that error.
   */
  plan(obj: Obj, info: PassInfo): PassPlan<Obj> | undefined;
  /** The key is gone and done with: drop anything kept for it. Optional. */
  forget?(key: string): void;
  /**
   * The body delivers every event itself (`InformerController`): the runner does not remember a
   * handled deletion, so the object's later DELETED event still reaches the body. Default false.
   */
  readonly edgeTriggered?: boolean;
}
