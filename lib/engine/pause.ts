import { PAUSE_ANNOTATION_VALUE } from './defaults.js';

interface Annotated {
  metadata?: { annotations?: Record<string, string> | undefined } | undefined;
}

/**
 * The pause annotation that stops reconciliation of `obj`, or undefined when it is not paused.
 * Paused means: one of `annotationKeys` is present with the value exactly `"true"` (`""`, `"false"`,
 * `"TRUE"` and empty keys do not pause). A paused object is not reconciled at all, deletion included,
 * so its finalizer stays until it is unpaused.
 * @category Engine: Framework and ControllerCore
 */
export function pauseAnnotation(
  obj: Annotated | undefined,
  annotationKeys: readonly string[],
): { key: string; value: string } | undefined {
  const annotations = obj?.metadata?.annotations;
  if (annotations === undefined) return undefined;
  for (const key of annotationKeys) {
    if (key === '') continue;
    const value = annotations[key];
    if (value === PAUSE_ANNOTATION_VALUE) return { key, value };
  }
  return undefined;
}

/**
 * Whether `obj` carries a pause annotation (see {@link pauseAnnotation}).
 * @category Engine: Framework and ControllerCore
 */
export function isPaused(obj: Annotated | undefined, annotationKeys: readonly string[]): boolean {
  return pauseAnnotation(obj, annotationKeys) !== undefined;
}
