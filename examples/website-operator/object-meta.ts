/* eslint-disable @typescript-eslint/no-misused-spread -- client-node models are plain-data classes: objects from the wire and object literals are never instances, and spreading them is how they are built. */
import type { KubernetesObject, V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';

/** Whether `obj` carries every label of `labels` with the same value (other labels are left alone). */
export function hasLabels(obj: KubernetesObject, labels: Record<string, string>): boolean {
  const current = obj.metadata?.labels ?? {};
  return Object.entries(labels).every(([key, value]) => current[key] === value);
}

/** Whether `obj` has an ownerReference to the owner `ref` names (matched by uid). */
export function hasOwner(obj: KubernetesObject, ref: V1OwnerReference): boolean {
  return (obj.metadata?.ownerReferences ?? []).some((owner) => owner.uid === ref.uid);
}

/**
 * The metadata of `current` with our labels and ownerReference added: what an update writes, so labels,
 * annotations and owners that others put on the object survive.
 */
export function mergedMeta(current: KubernetesObject, desired: KubernetesObject): V1ObjectMeta {
  const meta = current.metadata ?? {};
  const owners = meta.ownerReferences ?? [];
  const ours = desired.metadata?.ownerReferences ?? [];
  return {
    ...meta,
    labels: { ...meta.labels, ...desired.metadata?.labels },
    ownerReferences: [...owners.filter((o) => !ours.some((d) => d.uid === o.uid)), ...ours],
  };
}
