import type { KubernetesObject } from '@kubernetes/client-node';
import { KindNotServedError } from '../errors/kind-not-served-error.js';
import { isNotFound } from '../kube/api-error.js';
import type { ObjectClient } from '../kube/object-client.js';

interface Crd extends KubernetesObject {
  spec?: { group?: string; names?: { kind?: string }; versions?: { name?: string; served?: boolean }[] };
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The closest of `candidates` to `word` when it is a likely typo (edit distance ≤ 2), else undefined. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const d = distance(word.toLowerCase(), name.toLowerCase());
    if (d <= 2 && (best === undefined || d < best.d)) best = { name, d };
  }
  return best?.name;
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/**
 * Resolves a watched kind through discovery. When it is not served, looks for a reason to wait: a
 * CustomResourceDefinition that defines it (installed with the operator, not yet established), or no
 * permission to tell (RBAC without `list customresourcedefinitions`) — then the NotFound is rethrown and
 * start() retries it. When nothing will ever serve it, throws a {@link KindNotServedError} at once,
 * naming what the group version does serve (and the likely intended kind) and what to do.
 */
export async function resolveServedKind(
  client: ObjectClient,
  resource: { apiVersion: string; kind: string },
): Promise<{ plural: string; namespaced: boolean }> {
  try {
    return await client.resolve(resource);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const { group, version } = splitApiVersion(resource.apiVersion);
    let crds: Crd[];
    try {
      crds = await client.definingCrds(resource.apiVersion);
    } catch {
      throw err; // cannot tell whether a CRD is coming: keep retrying until the sync timeout
    }
    const defining = crds.find((c) => c.spec?.group === group && c.spec.names?.kind === resource.kind);
    const versions = (defining?.spec?.versions ?? []).filter((v) => v.served !== false).map((v) => v.name);
    if (defining !== undefined && versions.includes(version)) throw err; // installed, not yet served: wait
    const what = `${resource.kind} (${resource.apiVersion})`;
    let hint: string;
    if (defining !== undefined) {
      hint = `CustomResourceDefinition ${defining.metadata?.name ?? '?'} serves ${resource.kind} in version(s) ${versions.join(', ') || 'none'}: use one of them in apiVersion`;
    } else {
      const served = await client.servedKinds(resource.apiVersion).catch(() => [] as string[]);
      const guess = closest(resource.kind, served);
      hint =
        served.length === 0
          ? `${resource.apiVersion} is not served at all: install the CustomResourceDefinition of ${resource.kind} (kubectl apply -f <crd>.yaml) or fix apiVersion`
          : `${resource.apiVersion} serves ${served.join(', ')}${guess === undefined ? '' : ` — did you mean ${guess}?`}; fix the kind or install its CustomResourceDefinition`;
    }
    throw new KindNotServedError(
      resource.kind,
      resource.apiVersion,
      `${what} is not served by the API server and no CustomResourceDefinition defines it: ${hint}`,
      { cause: err },
    );
  }
}
