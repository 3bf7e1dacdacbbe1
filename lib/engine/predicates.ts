import type { KubernetesObject } from '@kubernetes/client-node';
import { InvalidConfigError } from '../errors/invalid-config-error.js';

/**
 * One change seen by a watch, as predicates see it (an update carries the previous object).
 * @category Engine: Framework and ControllerCore
 */
export type SourceEvent<T extends KubernetesObject = KubernetesObject> =
  { type: 'add'; object: T } | { type: 'update'; old: T; object: T } | { type: 'delete'; object: T };

/**
 * Filters watch events before they enqueue anything (controller-runtime's predicates). Several
 * predicates in a list must all pass. A predicate that throws drops the event (logged and counted).
 * @category Engine: Framework and ControllerCore
 */
export type Predicate<T extends KubernetesObject = KubernetesObject> = (event: SourceEvent<T>) => boolean;

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  const bk = Object.keys(b ?? {});
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (a?.[k] !== b?.[k]) return false;
  return true;
}

/** Builds an update-only predicate: add and delete events always pass. */
function onUpdate<T extends KubernetesObject>(changed: (old: T, obj: T) => boolean): Predicate<T> {
  return (event) => event.type !== 'update' || changed(event.old, event.object);
}

function checked<T extends KubernetesObject>(list: readonly Predicate<T>[], fn: string): void {
  list.forEach((p, i) => {
    if (typeof p !== 'function') {
      throw new InvalidConfigError(`predicates.${fn}(): argument ${i} must be a predicate function`);
    }
  });
}

/**
 * Ready-made predicates. Each filters only updates (a new or deleted object always passes), so a
 * new object is never stalled; the engine also re-runs an object itself after its own finalizer patch.
 * @category Engine: Framework and ControllerCore
 */
export const predicates = Object.freeze({
  /** Updates pass when `metadata.generation` changed (spec changes; not status-only writes). */
  generationChanged<T extends KubernetesObject = KubernetesObject>(): Predicate<T> {
    return onUpdate<T>((old, obj) => old.metadata?.generation !== obj.metadata?.generation);
  },
  /** Updates pass when `metadata.resourceVersion` changed (drops relist duplicates). */
  resourceVersionChanged<T extends KubernetesObject = KubernetesObject>(): Predicate<T> {
    return onUpdate<T>((old, obj) => old.metadata?.resourceVersion !== obj.metadata?.resourceVersion);
  },
  /** Updates pass when the labels changed. */
  labelsChanged<T extends KubernetesObject = KubernetesObject>(): Predicate<T> {
    return onUpdate<T>((old, obj) => !sameRecord(old.metadata?.labels, obj.metadata?.labels));
  },
  /** Updates pass when the annotations changed. */
  annotationsChanged<T extends KubernetesObject = KubernetesObject>(): Predicate<T> {
    return onUpdate<T>((old, obj) => !sameRecord(old.metadata?.annotations, obj.metadata?.annotations));
  },
  /** Passes when every predicate passes (true for none). */
  and<T extends KubernetesObject = KubernetesObject>(...list: Predicate<T>[]): Predicate<T> {
    checked(list, 'and');
    return (event) => list.every((p) => p(event));
  },
  /** Passes when any predicate passes (false for none). */
  or<T extends KubernetesObject = KubernetesObject>(...list: Predicate<T>[]): Predicate<T> {
    checked(list, 'or');
    return (event) => list.some((p) => p(event));
  },
  /** Passes when `p` does not. */
  not<T extends KubernetesObject = KubernetesObject>(p: Predicate<T>): Predicate<T> {
    checked([p], 'not');
    return (event) => !p(event);
  },
});
