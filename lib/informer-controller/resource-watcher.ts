import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileContext } from '../context/reconcile-context.js';
import type { Awaitable } from '../util/awaitable.js';

/**
 * Per-event callbacks for one kind (grafana-app-sdk's `ResourceWatcher`). Throwing or rejecting fails
 * that call: the `InformerController` reports it through `errorHandler` and retries it per its
 * `retryPolicy`, with the same snapshot. A watcher may leave out methods it does not need, but must
 * have at least one.
 * @category Informer controller (grafana-app-sdk)
 */
export interface ResourceWatcher<Obj extends KubernetesObject = KubernetesObject> {
  /** The object appeared (created, or listed at start). */
  add?(ctx: ReconcileContext, obj: Obj): Awaitable<void>;
  /** The object changed from `old` to `obj` (snapshots at event time). */
  update?(ctx: ReconcileContext, old: Obj, obj: Obj): Awaitable<void>;
  /** The object is gone; `obj` is its last known state. */
  delete?(ctx: ReconcileContext, obj: Obj): Awaitable<void>;
}

/**
 * The functions of a {@link SimpleWatcher}; each left out is a no-op.
 * @category Informer controller (grafana-app-sdk)
 */
export interface SimpleWatcherFunctions<Obj extends KubernetesObject = KubernetesObject> {
  add?: (ctx: ReconcileContext, obj: Obj) => Awaitable<void>;
  update?: (ctx: ReconcileContext, old: Obj, obj: Obj) => Awaitable<void>;
  delete?: (ctx: ReconcileContext, obj: Obj) => Awaitable<void>;
}

/**
 * A {@link ResourceWatcher} from functions; a function left out is a no-op (grafana's `SimpleWatcher`).
 * @category Informer controller (grafana-app-sdk)
 */
export class SimpleWatcher<Obj extends KubernetesObject = KubernetesObject> implements ResourceWatcher<Obj> {
  private readonly fns: SimpleWatcherFunctions<Obj>;

  constructor(fns: SimpleWatcherFunctions<Obj> = {}) {
    this.fns = fns;
  }

  add(ctx: ReconcileContext, obj: Obj): Awaitable<void> {
    return this.fns.add?.(ctx, obj);
  }

  update(ctx: ReconcileContext, old: Obj, obj: Obj): Awaitable<void> {
    return this.fns.update?.(ctx, old, obj);
  }

  delete(ctx: ReconcileContext, obj: Obj): Awaitable<void> {
    return this.fns.delete?.(ctx, obj);
  }
}
