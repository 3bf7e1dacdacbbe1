import type { JSONSchemaProps } from './schema/json-schema-props.js';
import type { PrinterColumn } from './table/table.js';

/** Where a type's /scale subresource reads and writes (paths are dotted, e.g. `.spec.replicas`). */
export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** Per-version details of a served type (CRDs may differ per version). */
export interface ServedVersion {
  name: string;
  /** Structural schema (CRDs only); built-ins are stored schemaless. */
  schema?: JSONSchemaProps;
  /** Printer columns for Table output; undefined means Name and Age. */
  printerColumns?: PrinterColumn[];
  /**
   * The version is deprecated (CRD `deprecated: true`): every request to its resources answers this
   * text in a `299` Warning header — the CRD's deprecationWarning, or kube's default
   * `<group>/<version> <Kind> is deprecated; use <group>/<newest served version> <Kind>`.
   */
  deprecationWarning?: string;
}

/** A resource type the server serves: a built-in kind or one registered by a CRD. */
export interface ResourceType {
  /** '' for the core group. */
  group: string;
  /** Served versions, most preferred first. */
  versions: ServedVersion[];
  /** Version objects are stored in. */
  storageVersion: string;
  /**
   * The storage version's structural schema (CRDs), also when that version is not served: a write through
   * another version is pruned against it on the way to storage.
   */
  storageSchema?: JSONSchemaProps;
  /** Plural resource name used in paths. */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** The status subresource exists: main writes keep status, /status writes change only status. */
  statusSubresource: boolean;
  scale?: ScaleSubresource;
  /** Compiled-in type: strategic merge patch allowed; no structural schema. */
  builtin: boolean;
  /** metadata.generation is maintained. */
  tracksGeneration: boolean;
  /** DELETE answers with the deleted object instead of a success Status (pods, serviceaccounts). */
  deleteReturnsObject: boolean;
  /** PUT without metadata.resourceVersion is allowed (last write wins). */
  unconditionalUpdate: boolean;
  /** Name of the CRD that registered this type. */
  crdName?: string;
  /**
   * The only verbs served, when not all of RESOURCE_VERBS: `['create']` for the review APIs
   * (SelfSubjectAccessReview, TokenReview, …), which answer a POST and store nothing.
   */
  verbs?: readonly string[];
  /** Extra field paths usable in field selectors (CRD selectableFields). */
  selectableFields?: string[];
}

/** The storage key of a type: `group/resource`. */
export function typeKey(type: { group: string; resource: string }): string {
  return `${type.group}/${type.resource}`;
}

/** `group/version`, or just `version` for the core group. */
export function apiVersionOf(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** The verbs discovery advertises for a main resource. */
export const RESOURCE_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];
