import type { ReconcileContext } from '../../../context/reconcile-context.js';
import type { Awaitable } from '../../../util/awaitable.js';
import type { CRUDResourceOps, CRUDStep } from '../crud-resource-ops.js';
import { CRUDResource } from '../crud-resource.js';
import type { Resource } from '../resource.js';
import { WrappedCRUDResource } from './wrapped-crud-resource.js';
import type { WrappedResource } from './wrapped-resource.js';

/**
 * What a wrapper decorates: a CRUD step, or a plain resource's whole ensure call.
 * @category CRUD resources
 */
export type ResourceOperation = CRUDStep | 'EnsureCreated' | 'EnsureDeleted';

/**
 * The decoration: runs `call` (one step or ensure call of `resourceName`) in some way and returns its result.
 * @category CRUD resources
 */
export type OperationDecorator = <T>(
  ctx: ReconcileContext,
  resourceName: string,
  operation: ResourceOperation,
  call: () => Awaitable<T>,
) => Promise<T>;

/** Ops whose every step goes through `around`; `ops` itself is untouched. */
export function decorateOps<Obj, State, Change>(
  ops: CRUDResourceOps<Obj, State, Change>,
  around: OperationDecorator,
): CRUDResourceOps<Obj, State, Change> {
  const name = ops.name;
  return {
    name,
    getCurrentState: (ctx, obj) => around(ctx, name, 'GetCurrentState', () => ops.getCurrentState(ctx, obj)),
    getDesiredState: (ctx, obj) => around(ctx, name, 'GetDesiredState', () => ops.getDesiredState(ctx, obj)),
    newUpdatePatch: (ctx, obj, current, desired) =>
      around(ctx, name, 'NewUpdatePatch', () => ops.newUpdatePatch(ctx, obj, current, desired)),
    newDeletePatch: (ctx, obj, current, desired) =>
      around(ctx, name, 'NewDeletePatch', () => ops.newDeletePatch(ctx, obj, current, desired)),
    applyCreateChange: (ctx, obj, change) =>
      around(ctx, name, 'ApplyCreateChange', () => ops.applyCreateChange(ctx, obj, change)),
    applyDeleteChange: (ctx, obj, change) =>
      around(ctx, name, 'ApplyDeleteChange', () => ops.applyDeleteChange(ctx, obj, change)),
    applyUpdateChange: (ctx, obj, change) =>
      around(ctx, name, 'ApplyUpdateChange', () => ops.applyUpdateChange(ctx, obj, change)),
  };
}

class DecoratedResource<Obj> implements WrappedResource<Obj> {
  readonly name: string;

  constructor(
    private readonly inner: Resource<Obj>,
    private readonly around: OperationDecorator,
  ) {
    this.name = inner.name;
  }

  ensureCreated(ctx: ReconcileContext, obj: Obj): Promise<void> {
    return this.around(ctx, this.name, 'EnsureCreated', () => this.inner.ensureCreated(ctx, obj));
  }

  ensureDeleted(ctx: ReconcileContext, obj: Obj): Promise<void> {
    return this.around(ctx, this.name, 'EnsureDeleted', () => this.inner.ensureDeleted(ctx, obj));
  }

  wrapped(): Resource<Obj> {
    return this.inner;
  }
}

/**
 * A new resource decorating `resource` with `around`. A CRUD resource (anything extending `CRUDResource`,
 * wrappers included) is decorated per step and stays CRUD-extractable; any other resource is decorated
 * per ensure call. Either way the result's `wrapped()` is `resource`, which is never modified.
 * @category CRUD resources
 */
export function decorateResource<Obj>(
  resource: Resource<Obj>,
  around: OperationDecorator,
): WrappedResource<Obj> {
  if (resource instanceof CRUDResource) {
    const crud = resource as CRUDResource<Obj>;
    return new WrappedCRUDResource(crud, decorateOps(crud.ops, around), crud.logger);
  }
  return new DecoratedResource(resource, around);
}
