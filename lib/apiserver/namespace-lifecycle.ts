import type { ApiServerCore } from './core.js';
import { metadataOf, objectAt, stringAt, stringsAt, type JsonObject } from './json.js';
import { deleteObject } from './object-lifecycle.js';

/**
 * One pass of the namespace controller: for each Terminating namespace, deletes its contents
 * (honouring their finalizers); once empty, drops the `kubernetes` spec finalizer and, when no
 * metadata finalizers remain, the namespace itself. Returns true when it changed anything.
 */
export function finalizeNamespaces(core: ApiServerCore): boolean {
  const { store, registry } = core;
  let changed = false;
  const nsType = registry.byKey('/namespaces');
  if (!nsType) return false;
  for (const ns of store.list('/namespaces')) {
    const meta = metadataOf(ns);
    if (stringAt(meta, 'deletionTimestamp') === undefined) continue;
    const name = stringAt(meta, 'name') ?? '';
    let remaining = 0;
    for (const key of store.typeKeys()) {
      const type = registry.byKey(key);
      if (!type?.namespaced) continue;
      for (const obj of store.list(key, name)) {
        remaining++;
        if (stringAt(metadataOf(obj), 'deletionTimestamp') === undefined) {
          deleteObject(core, type, obj, 'Background', false);
          changed = true;
        }
      }
    }
    if (remaining > 0) continue;
    const spec = objectAt(ns, 'spec') ?? {};
    const specFinalizers = stringsAt(spec, 'finalizers');
    if (specFinalizers.includes('kubernetes')) {
      const next: JsonObject = {
        ...ns,
        spec: { ...spec, finalizers: specFinalizers.filter((f) => f !== 'kubernetes') },
      };
      store.update('/namespaces', next, ns);
      changed = true;
      continue;
    }
    if (specFinalizers.length === 0 && stringsAt(meta, 'finalizers').length === 0) {
      store.remove('/namespaces', ns);
      changed = true;
    }
  }
  return changed;
}
