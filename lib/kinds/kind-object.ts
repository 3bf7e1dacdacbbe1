import type { KubernetesObject, V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import type { Static, TSchema } from 'typebox';
import type { CelRule, PrinterColumn, ScaleSubresource } from './crd-types.js';

/**
 * One version of a kind, as `defineKind` takes it: the spec and status schemas (TypeBox, or any JSON
 * Schema built the same way) and what the CRD says about the version.
 * @category Kinds
 */
export interface KindVersionOptions {
  /** Schema of `spec`: `Type.Object({...})`. Required. */
  spec: TSchema;
  /** Schema of `status`. Default: none (the kind has no status). */
  status?: TSchema;
  /** Served by the API. Default true. */
  served?: boolean;
  /** The version objects are stored in: exactly one version has it. Default true when there is one version. */
  storage?: boolean;
  /** Deprecated: clients get a warning. Default false. */
  deprecated?: boolean;
  /** The warning text for a deprecated version. Default: the API server's. */
  deprecationWarning?: string;
  /**
   * Subresources. Default: `status` when a status schema is given (writes to `/status` change only
   * status, writes to the object never change it), no `scale`.
   */
  subresources?: { status?: boolean; scale?: ScaleSubresource };
  /** `kubectl get` columns (after NAME; `Age` is added unless a date column of creationTimestamp is given). Default none. */
  printerColumns?: readonly PrinterColumn[];
  /** CEL rules on the whole object (`self.spec`, `self.status`, `self.metadata.name`). Default none. */
  validations?: readonly CelRule[];
  /** Description of the object (shown by `kubectl explain`). Default none. */
  description?: string;
}

/**
 * What `defineKind` takes: the kind's names, scope and versions.
 * @category Kinds
 */
export interface KindOptions<
  V extends Record<string, KindVersionOptions> = Record<string, KindVersionOptions>,
> {
  /** API group, a DNS subdomain with at least one dot (`demo.reconcilekit.io`). Required. */
  group: string;
  /** Kind in CamelCase (`Website`). Required. */
  kind: string;
  /** Lower-case plural, the URL segment (`websites`). Required: English plurals are not guessed. */
  plural: string;
  /** Lower-case singular. Default: the kind in lower case. */
  singular?: string;
  /** Short names for kubectl (`site`). Default none. */
  shortNames?: readonly string[];
  /** Categories for `kubectl get <category>` (`all`). Default none. */
  categories?: readonly string[];
  /** Kind of a list. Default `<kind>List`. */
  listKind?: string;
  /** `Namespaced` (default) or `Cluster`. */
  scope?: 'Namespaced' | 'Cluster';
  /** The versions by name (`{ v1: {...}, v2: {...} }`), in the order the CRD lists them. Required. */
  versions: V;
}

/**
 * An object of a kind: a Kubernetes object whose `spec` and `status` have the kind's static types.
 * @category Kinds
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
 * @category Kinds
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
 * @category Kinds
 */
export type DeepPartial<T> = T extends readonly (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * Metadata of an apply configuration: the name (and namespace) identify the object; labels, annotations,
 * owner references and finalizers are applied like any field.
 * @category Kinds
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
 * @category Kinds
 */
export interface ApplyConfiguration<Spec = unknown, Status = unknown> {
  apiVersion?: string;
  kind?: string;
  metadata: ApplyMetadata;
  spec?: DeepPartial<Spec>;
  status?: DeepPartial<Status>;
}

/** The static type of a version's spec. */
export type SpecOfVersion<O> = O extends { spec: infer S extends TSchema } ? Static<S> : never;
/** The static type of a version's status (never when the version has none). */
export type StatusOfVersion<O> = O extends { status: infer S extends TSchema } ? Static<S> : never;

/** The version `defineKind` types a kind by: the one marked `storage: true`, else the only one. */
export type StorageVersionOf<V> = [
  { [K in keyof V]: V[K] extends { storage: true } ? K : never }[keyof V],
] extends [never]
  ? keyof V & string
  : { [K in keyof V]: V[K] extends { storage: true } ? K : never }[keyof V] & string;
