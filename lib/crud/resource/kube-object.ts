import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * The default type of the object being reconciled: any Kubernetes object (`apiVersion`, `kind`,
 * `metadata`). Resources, sets and routers are generic over it, so a typed custom resource can be used
 * instead (`Resource<MyCustomResource>`).
 * @category CRUD resources
 */
export type KubeObject = KubernetesObject;
