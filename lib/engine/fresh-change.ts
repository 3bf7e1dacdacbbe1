import type { KubernetesObject } from '@kubernetes/client-node';

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  for (const k of ak) if (a?.[k] !== b?.[k]) return false;
  return true;
}

/**
 * Whether an update is a change a failing key should react to at once (and count attempts afresh):
 * a new object, a new generation (or any change for kinds without one), new labels or annotations, or
 * the start of its deletion. A status-only write — the engine's own error condition among them — is not.
 */
export function freshChange(old: KubernetesObject | undefined, obj: KubernetesObject): boolean {
  if (old === undefined) return true;
  const a = old.metadata;
  const b = obj.metadata;
  if (a?.uid !== b?.uid) return true;
  if (a?.generation === undefined || b?.generation === undefined) {
    return a?.resourceVersion !== b?.resourceVersion;
  }
  return (
    a.generation !== b.generation ||
    Boolean(a.deletionTimestamp) !== Boolean(b.deletionTimestamp) ||
    !sameRecord(a.labels, b.labels) ||
    !sameRecord(a.annotations, b.annotations)
  );
}
