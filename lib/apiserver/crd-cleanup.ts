import type { ApiServerCore } from './core.js';
import { crdToType } from './crd-types.js';
import { metadataOf, stringAt, stringsAt, type JsonObject } from './json.js';
import { CRD_CLEANUP_FINALIZER, commitUpdate, deleteObject } from './object-lifecycle.js';
import { typeKey } from './resource-type.js';

export const CRD_KEY = 'apiextensions.k8s.io/customresourcedefinitions';

/**
 * CRD cleanup for one CRD: once it is deleted, its custom resources are deleted (honouring their
 * finalizers); when none remain its endpoints go away and the cleanup finalizer is removed.
 */
export function cleanupCustomResourceDefinition(core: ApiServerCore, name: string): void {
  const { store, registry } = core;
  const crdType = registry.byKey(CRD_KEY);
  const crd = store.get(CRD_KEY, undefined, name);
  if (!crdType || !crd) return;
  const meta = metadataOf(crd);
  if (stringAt(meta, 'deletionTimestamp') === undefined) return;
  if (!stringsAt(meta, 'finalizers').includes(CRD_CLEANUP_FINALIZER)) return;
  const type = crdToType(crd);
  const key = typeKey(type);
  const registered = registry.byKey(key) ?? type;
  for (const obj of store.list(key)) {
    if (stringAt(metadataOf(obj), 'deletionTimestamp') === undefined)
      deleteObject(core, registered, obj, 'Background', false);
  }
  if (store.list(key).length > 0) return;
  registry.unregister(type.group, type.resource);
  core.hub.endAll(key);
  store.dropType(key);
  const finalizers = stringsAt(meta, 'finalizers').filter((f) => f !== CRD_CLEANUP_FINALIZER);
  const nextMeta: JsonObject = { ...meta, finalizers };
  if (finalizers.length === 0) delete nextMeta.finalizers;
  commitUpdate(core, crdType, crd, { ...crd, metadata: nextMeta }, false);
}
