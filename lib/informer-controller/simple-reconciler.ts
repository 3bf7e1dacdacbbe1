import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileContext } from '../context/reconcile-context.js';
import type {
  ReconcileFunction,
  ReconcileRequest,
  ReconcileResult,
  Reconciler,
} from '../controller/reconcile-types.js';
import type { Awaitable } from '../util/awaitable.js';
import { CannotCastError } from './informer-errors.js';

type Outcome = Awaitable<ReconcileResult | undefined | void>; // eslint-disable-line @typescript-eslint/no-invalid-void-type -- as ReconcileFunction

/**
 * A {@link Reconciler} from one function; without it every call succeeds (grafana's `SimpleReconciler`).
 * @category Informer controller (grafana-app-sdk)
 */
export class SimpleReconciler<Obj extends KubernetesObject = KubernetesObject> implements Reconciler<Obj> {
  constructor(private readonly fn?: ReconcileFunction<Obj>) {}

  reconcile(ctx: ReconcileContext, req: ReconcileRequest<Obj>): Outcome {
    return this.fn === undefined ? {} : this.fn(ctx, req);
  }
}

/**
 * Options of a {@link TypedReconciler}.
 * @category Informer controller (grafana-app-sdk)
 */
export interface TypedReconcilerOptions<T extends KubernetesObject> {
  /** Runtime type guard: true when the object has the shape `T`. Required. */
  is: (obj: KubernetesObject) => obj is T;
  /** Called with the object typed as `T`. Default: none (every call succeeds). */
  reconcile?: ReconcileFunction<T>;
}

/**
 * A {@link Reconciler} for objects of one shape (grafana's `TypedReconciler[T]`): TypeScript has no
 * runtime cast, so a type guard decides; an object it rejects fails the call with a
 * {@link CannotCastError} naming the object (retried and reported like any error; other objects keep
 * flowing).
 * @category Informer controller (grafana-app-sdk)
 */
export class TypedReconciler<T extends KubernetesObject> implements Reconciler {
  private readonly options: TypedReconcilerOptions<T>;

  constructor(options: TypedReconcilerOptions<T>) {
    if (typeof options !== 'object' || typeof (options as { is?: unknown }).is !== 'function') {
      throw new TypeError(
        'new TypedReconciler({ is, reconcile? }): `is` must be a type guard (obj) => obj is T',
      );
    }
    this.options = options;
  }

  reconcile(ctx: ReconcileContext, req: ReconcileRequest): Outcome {
    if (!this.options.is(req.object)) throw new CannotCastError(req.object);
    return this.options.reconcile === undefined
      ? {}
      : this.options.reconcile(ctx, req as ReconcileRequest<T>);
  }
}
