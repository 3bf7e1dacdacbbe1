import type { ReconcileContext } from '../../context/reconcile-context.js';
import type { Awaitable } from '../../util/awaitable.js';
import type { KubeObject } from './kube-object.js';
import type { Patch } from './patch.js';

/**
 * What a patch function may return: a patch, or nothing to apply.
 * @category CRUD resources
 */
export type MaybePatch<Change> = Patch<Change> | undefined | null;

/**
 * The eight members a user implements to get a {@link CRUDResource}. Every step receives the same `obj`.
 * The three apply functions are shared by both paths: `applyDeleteChange` runs whether its change came
 * from an update patch or a delete patch.
 * @category CRUD resources
 */
export interface CRUDResourceOps<Obj = KubeObject, State = unknown, Change = unknown> {
  /** Identifies the resource in logs and metrics. Non-empty. */
  readonly name: string;
  /** Reads what exists now (both paths). */
  getCurrentState(ctx: ReconcileContext, obj: Obj): Awaitable<State>;
  /** Computes what should exist (both paths; on delete, whatever the deleted case needs). */
  getDesiredState(ctx: ReconcileContext, obj: Obj): Awaitable<State>;
  /** Update path: what to create, delete and update to go from current to desired. */
  newUpdatePatch(
    ctx: ReconcileContext,
    obj: Obj,
    current: State,
    desired: State,
  ): Awaitable<MaybePatch<Change>>;
  /** Delete path: what to remove (usually only the delete part). */
  newDeletePatch(
    ctx: ReconcileContext,
    obj: Obj,
    current: State,
    desired: State,
  ): Awaitable<MaybePatch<Change>>;
  /** Applies the create part. */
  applyCreateChange(ctx: ReconcileContext, obj: Obj, change: Change): Awaitable<void>;
  /** Applies the delete part. */
  applyDeleteChange(ctx: ReconcileContext, obj: Obj, change: Change): Awaitable<void>;
  /** Applies the update part. */
  applyUpdateChange(ctx: ReconcileContext, obj: Obj, change: Change): Awaitable<void>;
}

/**
 * The CRUD steps, named as in logs (`function` key) and metrics (`operation` label).
 * @category CRUD resources
 */
export const CRUD_STEPS = [
  'GetCurrentState',
  'GetDesiredState',
  'NewUpdatePatch',
  'NewDeletePatch',
  'ApplyCreateChange',
  'ApplyDeleteChange',
  'ApplyUpdateChange',
] as const;

/**
 * One of {@link CRUD_STEPS}.
 * @category CRUD resources
 */
export type CRUDStep = (typeof CRUD_STEPS)[number];

/** The method of {@link CRUDResourceOps} behind each step. */
export const CRUD_STEP_METHODS = {
  GetCurrentState: 'getCurrentState',
  GetDesiredState: 'getDesiredState',
  NewUpdatePatch: 'newUpdatePatch',
  NewDeletePatch: 'newDeletePatch',
  ApplyCreateChange: 'applyCreateChange',
  ApplyDeleteChange: 'applyDeleteChange',
  ApplyUpdateChange: 'applyUpdateChange',
} as const satisfies Record<CRUDStep, keyof CRUDResourceOps>;
