import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * A change seen by a watcher. `old` is the previously cached object (for MODIFIED, and for DELETED when
 * known). A DELETED synthesised after a relist carries the last cached object as `object`.
 * @category Watch and cache
 */
export interface WatchEvent<T extends KubernetesObject = KubernetesObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: T;
  old?: T;
}
