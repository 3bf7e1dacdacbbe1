import type { ApiServerCore } from './core.js';
import { metadataOf, objectAt, stringAt, stringsAt, type JsonObject } from './json.js';
import { deleteObject } from './object-lifecycle.js';

/**
 * The namespace controller for one namespace: when it is Terminating, deletes its contents
 * (honouring their finalizers); once empty, drops the `kubernetes` spec finalizer and, when no
 * metadata finalizers remain, the namespace itself.
 */
export function finalizeNamespace(core: ApiServerCore, name: string): void {
  const { store, registry } = core;
  const ns = store.get('/namespaces', undefined, name);
  if (!ns) return;
  const meta = metadataOf(ns);
  if (stringAt(meta, 'deletionTimestamp') === undefined) return;
  let remaining = 0;
  for (const key of store.typeKeys()) {
    const type = registry.byKey(key);
    if (!type?.namespaced) continue;
    for (const obj of store.list(key, name)) {
      remaining++;
      if (stringAt(metadataOf(obj), 'deletionTimestamp') === undefined)
        deleteObject(core, type, obj, 'Background', false);
    }
  }
  if (remaining > 0) return;
  const spec = objectAt(ns, 'spec') ?? {};
  const specFinalizers = stringsAt(spec, 'finalizers');
  if (specFinalizers.includes('kubernetes')) {
    const next: JsonObject = {
      ...ns,
      spec: { ...spec, finalizers: specFinalizers.filter((f) => f !== 'kubernetes') },
    };
    store.update('/namespaces', next, ns);
    return;
  }
  if (specFinalizers.length === 0 && stringsAt(meta, 'finalizers').length === 0)
    store.remove('/namespaces', ns);
}
