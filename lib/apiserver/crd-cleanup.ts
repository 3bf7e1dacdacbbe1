import type { ApiServerCore } from './core.js';
import { crdToType } from './crd-types.js';
import { metadataOf, stringAt, stringsAt, type JsonObject } from './json.js';
import { CRD_CLEANUP_FINALIZER, commitUpdate, deleteObject } from './object-lifecycle.js';
import { typeKey } from './resource-type.js';

const CRD_KEY = 'apiextensions.k8s.io/customresourcedefinitions';

/**
 * One pass of CRD cleanup: a deleted CRD's custom resources are deleted (honouring their finalizers);
 * when none remain its endpoints go away and the cleanup finalizer is removed.
 */
export function cleanupCustomResourceDefinitions(core: ApiServerCore): boolean {
  const { store, registry } = core;
  const crdType = registry.byKey(CRD_KEY);
  if (!crdType) return false;
  let changed = false;
  for (const crd of store.list(CRD_KEY)) {
    const meta = metadataOf(crd);
    if (stringAt(meta, 'deletionTimestamp') === undefined) continue;
    if (!stringsAt(meta, 'finalizers').includes(CRD_CLEANUP_FINALIZER)) continue;
    const type = crdToType(crd);
    const key = typeKey(type);
    const registered = registry.byKey(key) ?? type;
    const objects = store.list(key);
    for (const obj of objects) {
      if (stringAt(metadataOf(obj), 'deletionTimestamp') === undefined) {
        deleteObject(core, registered, obj, 'Background', false);
        changed = true;
      }
    }
    if (store.list(key).length > 0) continue;
    registry.unregister(type.group, type.resource);
    core.hub.endAll(key);
    store.dropType(key);
    const finalizers = stringsAt(meta, 'finalizers').filter((f) => f !== CRD_CLEANUP_FINALIZER);
    const nextMeta: JsonObject = { ...meta, finalizers };
    if (finalizers.length === 0) delete nextMeta.finalizers;
    commitUpdate(core, crdType, crd, { ...crd, metadata: nextMeta }, false);
    changed = true;
  }
  return changed;
}
