import { DEFAULT_FINALIZER_PREFIX } from './defaults.js';

/**
 * One RFC 6902 JSON-Patch operation, as the finalizer patches use them.
 * @category Engine: Framework and ControllerCore
 */
export type JsonPatchOperation =
  | { op: 'test'; path: string; value: unknown }
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

interface FinalizerTarget {
  metadata?:
    | {
        finalizers?: string[] | undefined;
        resourceVersion?: string | undefined;
        deletionTimestamp?: Date | string | null | undefined;
      }
    | undefined;
}

/**
 * The finalizer a framework named `name` owns: `reconcilekit.io/<name>`.
 * @category Engine: Framework and ControllerCore
 */
export function finalizerName(frameworkName: string): string {
  return `${DEFAULT_FINALIZER_PREFIX}${frameworkName}`;
}

/**
 * Whether `obj` lists `finalizer`.
 * @category Engine: Framework and ControllerCore
 */
export function hasFinalizer(obj: FinalizerTarget | undefined, finalizer: string): boolean {
  return obj?.metadata?.finalizers?.includes(finalizer) ?? false;
}

/**
 * What adding `finalizer` to `obj` takes:
 * - `stop`: the object is being deleted; never add a finalizer then (the delete path runs instead);
 * - `present`: already there, continue reconciling;
 * - `patch`: the JSON-Patch to send. It tests `/metadata/resourceVersion` first, so a concurrent
 *   writer makes it fail with a conflict instead of being clobbered; it creates the list when absent.
 * @category Engine: Framework and ControllerCore
 */
export function addFinalizerPatch(
  obj: FinalizerTarget,
  finalizer: string,
): { action: 'stop' } | { action: 'present' } | { action: 'patch'; patch: JsonPatchOperation[] } {
  const meta = obj.metadata ?? {};
  if (meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) return { action: 'stop' };
  if (hasFinalizer(obj, finalizer)) return { action: 'present' };
  const patch: JsonPatchOperation[] = [];
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
    patch.push({ op: 'test', path: '/metadata/resourceVersion', value: meta.resourceVersion });
  }
  if (meta.finalizers === undefined || meta.finalizers.length === 0) {
    patch.push({ op: 'add', path: '/metadata/finalizers', value: [finalizer] });
  } else {
    patch.push({ op: 'add', path: '/metadata/finalizers/-', value: finalizer });
  }
  return { action: 'patch', patch };
}

/**
 * The JSON-Patch removing only `finalizer` from a freshly read `obj` (others' finalizers stay), guarded
 * by a resourceVersion test; undefined when the finalizer is not there (nothing to do).
 * @category Engine: Framework and ControllerCore
 */
export function removeFinalizerPatch(
  obj: FinalizerTarget,
  finalizer: string,
): JsonPatchOperation[] | undefined {
  if (!hasFinalizer(obj, finalizer)) return undefined;
  const meta = obj.metadata ?? {};
  const remaining = (meta.finalizers ?? []).filter((f) => f !== finalizer);
  const patch: JsonPatchOperation[] = [];
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
    patch.push({ op: 'test', path: '/metadata/resourceVersion', value: meta.resourceVersion });
  }
  patch.push({ op: 'replace', path: '/metadata/finalizers', value: remaining });
  return patch;
}
