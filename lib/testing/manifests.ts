/* eslint-disable @typescript-eslint/no-misused-spread -- client-node models are plain-data classes: objects from the wire and object literals are never instances, and spreading them is how they are built. */
import { readFile } from 'node:fs/promises';
import { loadYaml, type KubernetesObject } from '@kubernetes/client-node';
import { isAlreadyExists } from '../kube/api-error.js';
import type { ObjectClient } from '../kube/object-client.js';

/** Options of {@link applyManifests}. */
export interface ApplyManifestsOptions {
  /** Namespace for namespaced objects that name none. Default `'default'`, as kubectl. */
  namespace?: string;
  /** Aborts the remaining requests. */
  signal?: AbortSignal;
}

/** Reads every object of a (multi-document) YAML file; empty documents are skipped. */
export async function readManifests(path: string): Promise<KubernetesObject[]> {
  return parseManifests(await readFile(path, 'utf8'));
}

/**
 * Parses every object of a (multi-document) YAML text, in wire form; empty documents are skipped.
 *
 * client-node's `loadYaml`/`loadAllYaml` turn known kinds into its typed models, which renames fields
 * (`x-kubernetes-preserve-unknown-fields`, a schema's `default`) and drops unknown ones — sending the
 * result back to a server corrupts it. So each document is parsed as a plain value: nested under one key,
 * where client-node finds no `apiVersion`/`kind` to convert by.
 */
export function parseManifests(yaml: string): KubernetesObject[] {
  return yaml
    .split(/^---[ \t]*(?:#.*)?$/m)
    .filter((doc) => doc.replace(/^\s*#.*$/gm, '').trim() !== '')
    .map((doc) => {
      const nested = `document:\n${doc.replace(/^/gm, '  ')}`;
      return loadYaml<{ document?: unknown }>(nested).document;
    })
    .filter((doc): doc is KubernetesObject => typeof doc === 'object' && doc !== null);
}

/**
 * Creates each object in order, or replaces it when it already exists (as `kubectl apply` would for a
 * whole object), and resolves with what the server stored. The server's validation decides: an invalid
 * manifest rejects with its `ApiError` (422, 400 …), which is how a test proves YAML is accepted.
 */
export async function applyManifests(
  client: Pick<ObjectClient, 'create' | 'get' | 'replace' | 'resolve'>,
  objects: readonly KubernetesObject[],
  options: ApplyManifestsOptions = {},
): Promise<KubernetesObject[]> {
  const stored: KubernetesObject[] = [];
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  for (const original of objects) {
    if (
      original.apiVersion === undefined ||
      original.kind === undefined ||
      original.metadata?.name === undefined
    ) {
      throw new TypeError('every manifest needs apiVersion, kind and metadata.name');
    }
    const obj: KubernetesObject = { ...original, metadata: { ...original.metadata } };
    const { namespaced } = await client.resolve({ apiVersion: original.apiVersion, kind: original.kind });
    if (namespaced && obj.metadata !== undefined) obj.metadata.namespace ??= options.namespace ?? 'default';
    try {
      stored.push(await client.create(obj, signal));
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      const ref = { apiVersion: original.apiVersion, kind: original.kind, name: original.metadata.name };
      const current = await client.get(
        obj.metadata?.namespace === undefined ? ref : { ...ref, namespace: obj.metadata.namespace },
        signal,
      );
      const metadata = { ...obj.metadata, resourceVersion: current.metadata?.resourceVersion };
      stored.push(await client.replace({ ...obj, metadata }, signal));
    }
  }
  return stored;
}
