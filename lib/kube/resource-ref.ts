/**
 * Names a kind of Kubernetes object, optionally in one namespace.
 *
 * `plural` skips discovery when given (e.g. `'configmaps'`); without it the client resolves it once per
 * apiVersion through the discovery API. A namespaced kind without `namespace` means "all namespaces" for
 * list and watch.
 * @category Kubernetes client
 */
export interface ResourceRef {
  /** `group/version`, or `v1` for the core group. */
  apiVersion: string;
  /** Kind, e.g. `ConfigMap`. */
  kind: string;
  /** Lower-case plural resource name (e.g. `configmaps`). Default: resolved through discovery. */
  plural?: string;
  /** Namespace of a namespaced kind. Default: all namespaces (list/watch) or cluster-scoped (get). */
  namespace?: string;
}

/**
 * A {@link ResourceRef} naming one object.
 * @category Kubernetes client
 */
export type ObjectRef = ResourceRef & { name: string };
