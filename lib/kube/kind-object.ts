import type { KubernetesObject, V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';

/** Type-only key carrying a kind's spec and status types (no such property exists at run time). */
export declare const KIND_TYPES: unique symbol;

/**
 * A resource reference that also carries the static types of its objects' spec and status: what
 * `ObjectClient.of` takes (a kind from `defineKind` is one).
 * @category Kubernetes client
 */
export interface TypedResource<Spec = unknown, Status = unknown> {
  /** `group/version`. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  /** Whether objects live in a namespace. */
  readonly namespaced: boolean;
  /** Type-only: the static types of spec and status. */
  readonly [KIND_TYPES]?: { spec: Spec; status: Status };
}

/**
 * An object of a kind: a Kubernetes object whose `spec` and `status` have the kind's static types.
 * @category Kubernetes client
 */
export interface KindObject<Spec = unknown, Status = unknown> extends KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: V1ObjectMeta;
  spec: Spec;
  status?: Status;
}

/**
 * What `create` takes: the object without `status`; `apiVersion` and `kind` may be left to the client.
 * @category Kubernetes client
 */
export interface NewKindObject<Spec = unknown> {
  apiVersion?: string;
  kind?: string;
  metadata: V1ObjectMeta;
  spec: Spec;
}

/**
 * Every field optional, to any depth (lists of partial items): the shape of a server-side apply
 * configuration, which names only the fields its manager owns.
 * @category Kubernetes client
 */
export type DeepPartial<T> = T extends readonly (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * Metadata of an apply configuration: the name (and namespace) identify the object; labels, annotations,
 * owner references and finalizers are applied like any field.
 * @category Kubernetes client
 */
export interface ApplyMetadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: V1OwnerReference[];
  finalizers?: string[];
}

/**
 * A server-side apply configuration of a kind: the fields this manager owns, everything else left out.
 * @category Kubernetes client
 */
export interface ApplyConfiguration<Spec = unknown, Status = unknown> {
  apiVersion?: string;
  kind?: string;
  metadata: ApplyMetadata;
  spec?: DeepPartial<Spec>;
  status?: DeepPartial<Status>;
}
