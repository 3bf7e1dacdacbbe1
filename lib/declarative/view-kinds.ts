import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Views live in the group `<operator>.<suffix>` (dcontroller: `<operator>.view.dcontroller.io`).
 * @category Declarative operators
 */
export const DEFAULT_VIEW_GROUP_SUFFIX = 'view.reconcilekit.io';
/**
 * The one version of every view kind (dcontroller's).
 * @category Declarative operators
 */
export const VIEW_VERSION = 'v1alpha1';

/**
 * The view group of an operator: `<operator>.view.reconcilekit.io`.
 * @category Declarative operators
 */
export function viewGroup(operator: string, suffix = DEFAULT_VIEW_GROUP_SUFFIX): string {
  return `${operator}.${suffix}`;
}

/** Whether `apiVersion` (`group/version`) is in some operator's view group. */
export function isViewApiVersion(
  apiVersion: string | undefined,
  suffix = DEFAULT_VIEW_GROUP_SUFFIX,
): boolean {
  if (apiVersion === undefined) return false;
  const slash = apiVersion.lastIndexOf('/');
  return slash > 0 && apiVersion.slice(0, slash).endsWith(`.${suffix}`);
}

/** Lower-case plural of a view kind (`CmView` → `cmviews`, `Status` → `statuses`). */
export function viewPlural(kind: string): string {
  const lower = kind.toLowerCase();
  return /(s|x|z|ch|sh)$/.test(lower) ? `${lower}es` : `${lower}s`;
}

/**
 * The CustomResourceDefinition that serves a view kind: namespaced, schemaless (any fields kept), no
 * status subresource (a view's status is written with the object), categories `views` so
 * `kubectl get views` lists every view kind.
 */
export function viewCrd(group: string, kind: string): KubernetesObject {
  const plural = viewPlural(kind);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, labels: { 'reconcilekit.io/view-group': group } },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List`, categories: ['views'] },
      versions: [
        {
          name: VIEW_VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  } as KubernetesObject;
}
