import type { JSONSchemaProps } from '../schema/json-schema-props.js';

/** Group, version and kind of an object; group '' is the core group. */
export interface KindRef {
  group: string;
  version: string;
  kind: string;
  /**
   * Structural schema of the object (custom resources): lists marked `x-kubernetes-list-type: map` merge
   * by their `x-kubernetes-list-map-keys`, `set` lists are unions, and `x-kubernetes-map-type: atomic`
   * maps are replaced whole. Default none: custom-resource lists are then atomic.
   */
  schema?: JSONSchemaProps;
}
