import { LoopDetectedError } from '../../../errors/loop-detected-error.js';
import type { KubeObject } from '../kube-object.js';
import type { Resource } from '../resource.js';

/**
 * A resource that decorates another one (retry, metrics, or the user's own middleware).
 * @category CRUD resources
 */
export interface WrappedResource<Obj = KubeObject> extends Resource<Obj> {
  /** The resource this one decorates (one level down). */
  wrapped(): Resource<Obj>;
}

/**
 * How many wrapper levels {@link underlying} follows before reporting a loop.
 * @category CRUD resources
 */
export const MAX_WRAP_DEPTH = 1000;

/**
 * Whether `resource` decorates another one.
 * @category CRUD resources
 */
export function isWrappedResource<Obj>(resource: Resource<Obj>): resource is WrappedResource<Obj> {
  return typeof (resource as Partial<WrappedResource<Obj>>).wrapped === 'function';
}

/**
 * The innermost resource of a wrapper chain (`resource` itself when it wraps nothing). A chain that comes
 * back to a resource already seen, or is deeper than {@link MAX_WRAP_DEPTH}, is a `LoopDetectedError`.
 * @category CRUD resources
 */
export function underlying<Obj>(resource: Resource<Obj>): Resource<Obj> {
  const seen = new Set<Resource<Obj>>();
  let current = resource;
  while (isWrappedResource(current)) {
    if (seen.has(current) || seen.size >= MAX_WRAP_DEPTH) {
      throw new LoopDetectedError(
        `wrapper chain of resource "${resource.name}" loops back on itself after ${seen.size} levels; a wrapped() must not return an outer wrapper`,
      );
    }
    seen.add(current);
    current = current.wrapped();
  }
  return current;
}
