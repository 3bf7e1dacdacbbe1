import type { ApiServerCore } from './core.js';
import { isJsonObject, metadataOf, stringAt, stringsAt, type JsonObject } from './json.js';
import { commitUpdate, deleteObject, FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './object-lifecycle.js';

export function ownerRefs(obj: JsonObject): JsonObject[] {
  const refs = metadataOf(obj).ownerReferences;
  return Array.isArray(refs) ? refs.filter(isJsonObject) : [];
}

export function isMarked(obj: JsonObject): boolean {
  return stringAt(metadataOf(obj), 'deletionTimestamp') !== undefined;
}

function uidOf(obj: JsonObject): string {
  return stringAt(metadataOf(obj), 'uid') ?? '';
}

function withoutFinalizer(obj: JsonObject, finalizer: string): JsonObject {
  const meta = metadataOf(obj);
  const finalizers = stringsAt(meta, 'finalizers').filter((f) => f !== finalizer);
  const next: JsonObject = { ...meta, finalizers };
  if (finalizers.length === 0) delete next.finalizers;
  return { ...obj, metadata: next };
}

/** An owner counts only if it exists in the dependent's namespace, or is cluster-scoped. */
function ownerPresent(core: ApiServerCore, dependent: JsonObject, ref: JsonObject): boolean {
  const found = core.store.findByUid(stringAt(ref, 'uid') ?? '');
  if (!found) return false;
  const ownerNs = stringAt(metadataOf(found.object), 'namespace');
  return ownerNs === undefined || ownerNs === stringAt(metadataOf(dependent), 'namespace');
}

/**
 * Deletes a dependent whose owners are all absent (including owners that never existed), as the
 * kube garbage collector does with Background propagation.
 */
export function collectDependent(core: ApiServerCore, typeKey: string, uid: string): void {
  const found = core.store.findByUid(uid);
  const type = core.registry.byKey(typeKey);
  if (!found || !type || isMarked(found.object)) return;
  const refs = ownerRefs(found.object);
  if (refs.length === 0 || refs.some((r) => ownerPresent(core, found.object, r))) return;
  deleteObject(core, type, found.object, 'Background', false);
}

/**
 * Acts for one owner: gone → examine its dependents; deleting with `orphan` → strip references to it
 * and release it; deleting with `foregroundDeletion` → delete dependents, release it once none remain.
 */
export function collectOwner(core: ApiServerCore, uid: string): void {
  const { store, registry } = core;
  const owner = store.findByUid(uid);
  const dependents = store.dependentsOf(uid);
  if (!owner) {
    for (const dep of dependents) collectDependent(core, dep.typeKey, uidOf(dep.object));
    return;
  }
  const ownerType = registry.byKey(owner.typeKey);
  if (!ownerType || !isMarked(owner.object)) return;
  const finalizers = stringsAt(metadataOf(owner.object), 'finalizers');
  if (finalizers.includes(ORPHAN_FINALIZER)) {
    for (const dep of dependents) {
      const depType = registry.byKey(dep.typeKey);
      if (!depType) continue;
      const refs = ownerRefs(dep.object).filter((r) => r.uid !== uid);
      const depMeta: JsonObject = { ...metadataOf(dep.object), ownerReferences: refs };
      if (refs.length === 0) delete depMeta.ownerReferences;
      commitUpdate(core, depType, dep.object, { ...dep.object, metadata: depMeta }, false);
    }
    const fresh = store.findByUid(uid)?.object;
    if (fresh) commitUpdate(core, ownerType, fresh, withoutFinalizer(fresh, ORPHAN_FINALIZER), false);
    return;
  }
  if (finalizers.includes(FOREGROUND_FINALIZER)) {
    if (dependents.length === 0) {
      commitUpdate(
        core,
        ownerType,
        owner.object,
        withoutFinalizer(owner.object, FOREGROUND_FINALIZER),
        false,
      );
      return;
    }
    for (const dep of dependents) {
      const depType = registry.byKey(dep.typeKey);
      if (depType && !isMarked(dep.object)) deleteObject(core, depType, dep.object, 'Background', false);
    }
  }
}
