import type { ApiServerCore } from './core.js';
import { isJsonObject, metadataOf, stringAt, stringsAt, type JsonObject } from './json.js';
import { commitUpdate, deleteObject, FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from './object-lifecycle.js';
import type { ResourceType } from './resource-type.js';

interface Entry {
  type: ResourceType;
  object: JsonObject;
}

function ownerRefs(obj: JsonObject): JsonObject[] {
  const refs = metadataOf(obj).ownerReferences;
  return Array.isArray(refs) ? refs.filter(isJsonObject) : [];
}

function isMarked(obj: JsonObject): boolean {
  return stringAt(metadataOf(obj), 'deletionTimestamp') !== undefined;
}

function withoutFinalizer(obj: JsonObject, finalizer: string): JsonObject {
  const meta = metadataOf(obj);
  const finalizers = stringsAt(meta, 'finalizers').filter((f) => f !== finalizer);
  const next: JsonObject = { ...meta, finalizers };
  if (finalizers.length === 0) delete next.finalizers;
  return { ...obj, metadata: next };
}

/**
 * One pass of the ownerReference garbage collector: deletes dependents whose owners are all gone,
 * deletes dependents of Foreground-deleting owners and then releases the owner, strips references
 * to Orphan-deleting owners and then releases the owner. Returns true when it changed anything.
 */
export function collectGarbage(core: ApiServerCore): boolean {
  const { store, registry } = core;
  const all: Entry[] = [];
  for (const key of store.typeKeys()) {
    const type = registry.byKey(key);
    if (!type) continue;
    for (const object of store.list(key)) all.push({ type, object });
  }
  const dependents = new Map<string, Entry[]>();
  for (const entry of all) {
    for (const ref of ownerRefs(entry.object)) {
      const uid = stringAt(ref, 'uid') ?? '';
      const list = dependents.get(uid) ?? [];
      list.push(entry);
      dependents.set(uid, list);
    }
  }
  let changed = false;
  const ownerPresent = (dependent: Entry, ref: JsonObject): JsonObject | undefined => {
    const found = store.findByUid(stringAt(ref, 'uid') ?? '');
    if (!found) return undefined;
    const ownerNs = stringAt(metadataOf(found.object), 'namespace');
    const depNs = stringAt(metadataOf(dependent.object), 'namespace');
    if (ownerNs !== undefined && ownerNs !== depNs) return undefined;
    return found.object;
  };
  // Owners being deleted with Orphan or Foreground.
  for (const owner of all) {
    if (!isMarked(owner.object)) continue;
    const meta = metadataOf(owner.object);
    const uid = stringAt(meta, 'uid') ?? '';
    const finalizers = stringsAt(meta, 'finalizers');
    const deps = (dependents.get(uid) ?? []).filter((d) =>
      store.findByUid(stringAt(metadataOf(d.object), 'uid') ?? ''),
    );
    if (finalizers.includes(ORPHAN_FINALIZER)) {
      for (const dep of deps) {
        const current = store.findByUid(stringAt(metadataOf(dep.object), 'uid') ?? '')?.object;
        if (!current) continue;
        const refs = ownerRefs(current).filter((r) => r.uid !== uid);
        const depMeta: JsonObject = { ...metadataOf(current), ownerReferences: refs };
        if (refs.length === 0) delete depMeta.ownerReferences;
        commitUpdate(core, dep.type, current, { ...current, metadata: depMeta }, false);
      }
      const fresh = store.findByUid(uid)?.object;
      if (fresh) commitUpdate(core, owner.type, fresh, withoutFinalizer(fresh, ORPHAN_FINALIZER), false);
      changed = true;
      continue;
    }
    if (finalizers.includes(FOREGROUND_FINALIZER)) {
      if (deps.length === 0) {
        const fresh = store.findByUid(uid)?.object;
        if (fresh)
          commitUpdate(core, owner.type, fresh, withoutFinalizer(fresh, FOREGROUND_FINALIZER), false);
        changed = true;
        continue;
      }
      for (const dep of deps) {
        const current = store.findByUid(stringAt(metadataOf(dep.object), 'uid') ?? '')?.object;
        if (!current || isMarked(current)) continue;
        deleteObject(core, dep.type, current, 'Background', false);
        changed = true;
      }
    }
  }
  // Dependents whose owners are all absent (re-read: this pass may have changed them).
  for (const dep of all) {
    if (ownerRefs(dep.object).length === 0) continue;
    const current = store.findByUid(stringAt(metadataOf(dep.object), 'uid') ?? '')?.object;
    if (!current || isMarked(current)) continue;
    const refs = ownerRefs(current);
    if (refs.length === 0 || refs.some((r) => ownerPresent(dep, r) !== undefined)) continue;
    deleteObject(core, dep.type, current, 'Background', false);
    changed = true;
  }
  return changed;
}
