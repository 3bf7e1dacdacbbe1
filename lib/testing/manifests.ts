/* eslint-disable @typescript-eslint/no-misused-spread -- client-node models are plain-data classes: objects from the wire and object literals are never instances, and spreading them is how they are built. */
import { readFile } from 'node:fs/promises';
import type { KubernetesObject } from '@kubernetes/client-node';
import { isAlreadyExists } from '../kube/api-error.js';
import type { ObjectClient } from '../kube/object-client.js';
import { yamlModule } from '../util/yaml.js';

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

/** A manifest text that is not valid YAML, or holds a document that is not an object. */
export class ManifestParseError extends Error {
  override readonly name = 'ManifestParseError';
  constructor(
    message: string,
    /** 1-based index of the offending document in the text. */
    readonly document: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Aliases a manifest may expand (the `yaml` library's `maxAliasCount`): an alias bomb is refused. */
const MAX_MANIFEST_ALIAS_COUNT = 1000;

/**
 * Parses every object of a (multi-document) YAML text, in wire form; empty documents are skipped.
 *
 * Documents are split by a YAML parser (`---` markers with content or tags on the same line, `...` ends,
 * directives and comments all read as YAML 1.2 says), not by a regular expression, and each document is
 * kept as plain data: client-node's `loadYaml`/`loadAllYaml` turn known kinds into its typed models, which
 * renames fields (`x-kubernetes-preserve-unknown-fields`, a schema's `default`) and drops unknown ones.
 * Throws a {@link ManifestParseError} naming the document and line for invalid YAML, a document that is
 * not an object, or aliases that expand past {@link MAX_MANIFEST_ALIAS_COUNT}.
 */
export function parseManifests(yaml: string): KubernetesObject[] {
  const lib = yamlModule();
  const lines = new lib.LineCounter();
  const documents = lib.parseAllDocuments(yaml, { merge: true, lineCounter: lines });
  const all = Array.isArray(documents) ? documents : [];
  const objects: KubernetesObject[] = [];
  for (const [i, document] of all.entries()) {
    const index = i + 1;
    const error = document.errors[0];
    if (error !== undefined) {
      const at = lines.linePos(error.pos[0]);
      const what = error.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? error.code;
      throw new ManifestParseError(
        `manifest document ${String(index)} is not valid YAML: ${what} (line ${String(at.line)}, column ${String(at.col)})`,
        index,
        { cause: error },
      );
    }
    let value: unknown;
    try {
      value = document.toJS({ maxAliasCount: MAX_MANIFEST_ALIAS_COUNT });
    } catch (e) {
      throw new ManifestParseError(
        `manifest document ${String(index)} cannot be read: ${(e as Error).message} (aliases expand past ${String(MAX_MANIFEST_ALIAS_COUNT)}? write the repeated parts out)`,
        index,
        { cause: e },
      );
    }
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new ManifestParseError(
        `manifest document ${String(index)} is ${Array.isArray(value) ? 'a list' : `the ${typeof value} ${JSON.stringify(value)}`}, not an object: each document must be one Kubernetes object (apiVersion, kind, metadata)`,
        index,
      );
    }
    objects.push(value);
  }
  return objects;
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
