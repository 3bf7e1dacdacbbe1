import { deleteKey, isJsonObject } from '../patch/json-value.js';

/** ObjectMeta fields Go serialises with omitempty: kube never returns them empty. */
const OMIT_EMPTY_FIELDS = [
  'labels',
  'annotations',
  'finalizers',
  'ownerReferences',
  'managedFields',
  'generateName',
];

function isEmpty(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  if (isJsonObject(value)) return Object.keys(value).length === 0;
  return value === '' || value === null;
}

/**
 * Drops empty `labels`, `annotations`, `finalizers`, `ownerReferences`, `managedFields` and
 * `generateName` from an object's metadata, in place, because kube-apiserver round-trips metadata
 * through the typed ObjectMeta (omitempty) for every kind, custom resources included: removing the last
 * label by merge patch, JSON patch or apply leaves no `labels: {}` behind. Returns the object.
 */
export function normalizeObjectMeta<T extends Record<string, unknown>>(obj: T): T {
  const metadata = obj.metadata;
  if (!isJsonObject(metadata)) return obj;
  for (const key of OMIT_EMPTY_FIELDS) {
    if (key in metadata && isEmpty(metadata[key])) deleteKey(metadata, key);
  }
  return obj;
}
