import type { KubernetesObject } from '@kubernetes/client-node';
import type { Store } from '../watch/store.js';
import type { Predicate } from './predicates.js';

/**
 * A primary object a mapper names: `namespace/name` (or `name`), or its parts.
 * @category Engine: Framework and ControllerCore
 */
export type MappedKey = string | { namespace?: string; name: string };

/**
 * What a `watches` mapper can read besides the changed object.
 * @category Engine: Framework and ControllerCore
 */
export interface MapContext {
  /**
   * The controller's cache of a watched kind (the reconciled kind, `owns`, `watches`), as `cacheKey` gives
   * it in a pass: `cache('Website')?.byIndex('spec.secretName', secret.metadata.name)` finds the primaries
   * referencing a Secret through a field index (`indexField`) without scanning.
   */
  readonly cache: (kind: string, apiVersion?: string) => Store | undefined;
}

/**
 * Objects of any kind whose changes reconcile primaries through a mapper (controller-runtime's
 * `Watches` with `EnqueueRequestsFromMapFunc`). Watched through the shared informer cache.
 * @category Engine: Framework and ControllerCore
 */
export interface WatchSource<Src extends KubernetesObject = KubernetesObject> {
  /** `group/version` (or `v1`). Required. */
  apiVersion: string;
  /** Kind, e.g. `ConfigMap`. Required. */
  kind: string;
  /** Plural resource name. Default: found through discovery. */
  plural?: string;
  /** Only this namespace. Default: all namespaces. */
  namespace?: string;
  /** Only these namespaces, one watch each, one cache (instead of `namespace`). Default: all namespaces. */
  namespaces?: readonly string[];
  /** Only objects matching this label selector. Default: all. */
  labelSelector?: string;
  /** Only objects matching this field selector. Default: all. */
  fieldSelector?: string;
  /**
   * Watch and cache the metadata of these objects only (`PartialObjectMetadata`): `map` and the predicates
   * then see apiVersion, kind and metadata, no spec, data or status. Default false.
   */
  metadataOnly?: boolean;
  /**
   * Primary objects to reconcile for a change of `obj` (an update maps the old and the new object).
   * Returning anything but an array of keys, or throwing, is logged and counted; the event is dropped.
   * Required.
   */
  map(obj: Src, context: MapContext): readonly MappedKey[];
  /** Filters this source's events before mapping. Default none. */
  predicates?: readonly Predicate<Src>[];
}

/**
 * The work-queue keys named by a mapper's result, or a string saying what is wrong with it (so the
 * caller can log and count it without throwing).
 * @category Engine: Framework and ControllerCore
 */
export function mappedKeys(result: unknown): string[] | string {
  if (!Array.isArray(result)) {
    return `map() must return an array of keys ('namespace/name' or { namespace, name }); got ${describe(result)}`;
  }
  const keys: string[] = [];
  for (const [i, item] of result.entries()) {
    if (typeof item === 'string' && item !== '') keys.push(item);
    else if (
      typeof item === 'object' &&
      item !== null &&
      typeof (item as { name?: unknown }).name === 'string' &&
      (item as { name: string }).name !== ''
    ) {
      const { namespace, name } = item as { namespace?: unknown; name: string };
      if (namespace !== undefined && typeof namespace !== 'string') {
        return `map() result [${i}].namespace must be a string; got ${describe(namespace)}`;
      }
      keys.push(namespace === undefined || namespace === '' ? name : `${namespace}/${name}`);
    } else {
      return `map() result [${i}] must be a non-empty 'namespace/name' string or { namespace?, name }; got ${describe(item)}`;
    }
  }
  return keys;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return typeof value === 'object' ? 'an object' : typeof value;
}
