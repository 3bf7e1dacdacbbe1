import type { ReconcileContext } from '../../context/reconcile-context.js';
import type { KubeObject } from './kube-object.js';

/**
 * One building block of reconciliation logic. A resource set runs its resources one after another, in
 * order, never in parallel. Both methods must be idempotent: after an error the next run starts again
 * from the first resource.
 * @category CRUD resources
 */
export interface Resource<Obj = KubeObject> {
  /** Identifies the resource in logs (`resource` key) and metrics (`resource` label). Non-empty. */
  readonly name: string;
  /** Brings the world in line with `obj`; called for creations and updates alike. */
  ensureCreated(ctx: ReconcileContext, obj: Obj): Promise<void>;
  /** Cleans up what `ensureCreated` made, when `obj` is being deleted. */
  ensureDeleted(ctx: ReconcileContext, obj: Obj): Promise<void>;
}
