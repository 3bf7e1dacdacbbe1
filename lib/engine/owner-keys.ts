import type { KubernetesObject } from '@kubernetes/client-node';

function group(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/**
 * Work-queue keys of the owners of `obj` that are of kind `owner` (same API group, any version),
 * from its ownerReferences — controller-runtime's `Owns`. A namespaced owner lives in the owned
 * object's namespace (ownerReferences cannot cross namespaces).
 * @category Engine: Framework and ControllerCore
 */
export function ownerKeys(
  obj: KubernetesObject,
  owner: { apiVersion: string; kind: string },
  ownerNamespaced: boolean,
): string[] {
  const keys: string[] = [];
  const ownerGroup = group(owner.apiVersion);
  for (const ref of obj.metadata?.ownerReferences ?? []) {
    if (ref.kind !== owner.kind || group(ref.apiVersion) !== ownerGroup) continue;
    const namespace = obj.metadata?.namespace;
    keys.push(
      ownerNamespaced && namespace !== undefined && namespace !== '' ? `${namespace}/${ref.name}` : ref.name,
    );
  }
  return keys;
}
