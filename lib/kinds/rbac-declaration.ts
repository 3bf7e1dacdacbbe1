/**
 * An RBAC verb, as a Role or ClusterRole rule names it.
 * @category Kinds
 */
export type RbacVerb =
  'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/**
 * Requests your own code makes (CRUD resources, reconcile functions), which `reconcilekit generate rbac`
 * cannot see in the operator's configuration: the verbs it grants on one resource.
 * @category Kinds
 */
export interface RbacUse {
  /** `group/version` (or `v1`) of the resource; a kind from `defineKind` fits as it is. */
  apiVersion: string;
  /** Plural resource name, e.g. `configmaps`. */
  plural: string;
  /** A subresource (`status`, `scale`), when the requests go there. */
  subresource?: string;
  /** Only in this namespace (a Role there). Default: every namespace (the ClusterRole). */
  namespace?: string;
  /** The verbs. */
  verbs: readonly RbacVerb[];
  /** Why; written above the rule in rbac.yaml. */
  reason?: string;
}

/**
 * What an entry module exports as `rbac` for `reconcilekit generate rbac`: the requests of your own code,
 * next to the ones the engine makes (watches, finalizers, the error condition, Events, Leases, CRDs),
 * which are derived from the configuration. See docs/kinds.md.
 * @category Kinds
 */
export interface RbacDeclaration {
  /** Requests of your own code. */
  uses?: readonly RbacUse[];
}
