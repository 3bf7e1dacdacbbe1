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
  /** `kubectl get` columns after NAME (kube then shows only these: add `{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }` to keep the age). Default none: NAME and AGE. */
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
