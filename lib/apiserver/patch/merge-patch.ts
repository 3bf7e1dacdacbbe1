import { cloneJson, deleteKey, getOwn, isJsonObject, setKey } from './json-value.js';

/**
 * RFC 7386 JSON merge patch: objects merge recursively, `null` deletes a key, everything else (arrays,
 * scalars, a non-object patch) replaces wholesale. Never mutates its inputs.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return cloneJson(patch);
  const result: Record<string, unknown> = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      deleteKey(result, key);
    } else if (value !== undefined) {
      setKey(result, key, applyMergePatch(getOwn(result, key), value));
    }
  }
  // Keys the patch did not touch were copied shallowly: deep-copy them so the result shares nothing.
  for (const key of Object.keys(result)) {
    if (!Object.hasOwn(patch, key)) setKey(result, key, cloneJson(result[key]));
  }
  return result;
}
