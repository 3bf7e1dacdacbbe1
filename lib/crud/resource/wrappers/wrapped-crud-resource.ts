import type { Logger } from '../../../observability/logger.js';
import type { CRUDResourceOps } from '../crud-resource-ops.js';
import { CRUDResource } from '../crud-resource.js';
import type { KubeObject } from '../kube-object.js';
import type { Resource } from '../resource.js';
import type { WrappedResource } from './wrapped-resource.js';

/**
 * A CRUD resource built around decorated ops by a wrapper. It runs the checkpointed CRUD flow itself (so
 * flags keep working per step) and stays CRUD-extractable through `ops`, so another wrapper can decorate
 * it step by step again. The wrapped resource is never modified.
 * @category CRUD resources
 */
export class WrappedCRUDResource<Obj = KubeObject, State = unknown, Change = unknown>
  extends CRUDResource<Obj, State, Change>
  implements WrappedResource<Obj>
{
  private readonly inner: Resource<Obj>;

  constructor(
    inner: CRUDResource<Obj, State, Change>,
    ops: CRUDResourceOps<Obj, State, Change>,
    logger?: Logger,
  ) {
    super(logger === undefined ? { ops } : { ops, logger });
    this.inner = inner;
  }

  wrapped(): Resource<Obj> {
    return this.inner;
  }
}
