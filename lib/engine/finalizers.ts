import type { KubernetesObject } from '@kubernetes/client-node';
import { isConflict, isForbidden, isNotFound, isUnauthorized, retryAfterMs } from '../kube/api-error.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { ResourceRef } from '../kube/resource-ref.js';
import { backOffAbortable, type BackOffFactory } from '../util/backoff.js';
import { sleep } from '../util/sleep.js';
import { addFinalizerPatch, removeFinalizerPatch } from './finalizer-patch.js';

/**
 * What adding the finalizer did. `added` ends the pass: the patch causes the next event.
 * @category Engine: Framework and ControllerCore
 */
export type AddFinalizerResult =
  { outcome: 'added'; object: KubernetesObject } | { outcome: 'present' } | { outcome: 'deleting' };

/**
 * Whether to retry; when the server said when to come back (429/503 `Retry-After`), first waits that long,
 * so the next attempt is never sooner (the backoff's own delay follows).
 */
async function waitRetryAfter(err: unknown, retry: boolean, signal: AbortSignal): Promise<boolean> {
  if (!retry) return false;
  const hinted = retryAfterMs(err);
  if (hinted !== undefined) await sleep(hinted, signal);
  return true;
}

/** Errors worth another attempt: a stale resourceVersion (409, or 422 from the failed `test`), 429, 5xx, network. */
function retriable(err: unknown): boolean {
  if (isForbidden(err) || isUnauthorized(err) || isNotFound(err)) return false;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'number') return true;
  return code === 0 || code === 409 || code === 422 || code === 429 || code >= 500;
}

function refOf(resource: ResourceRef, obj: KubernetesObject): ResourceRef & { name: string } {
  const ref: ResourceRef & { name: string } = {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    name: obj.metadata?.name ?? '',
  };
  if (resource.plural !== undefined) ref.plural = resource.plural;
  const namespace = obj.metadata?.namespace;
  if (namespace !== undefined && namespace !== '') ref.namespace = namespace;
  return ref;
}

/**
 * Adds `finalizer` with a resourceVersion-guarded JSON patch. The first attempt uses `cached`; after a
 * conflict the object is read again, so a concurrent writer is never clobbered. NotFound (the object
 * vanished) is reported as `deleting`.
 * @category Engine: Framework and ControllerCore
 */
export async function addFinalizer(
  client: ObjectClient,
  resource: ResourceRef,
  cached: KubernetesObject,
  finalizer: string,
  backOffFactory: BackOffFactory,
  signal: AbortSignal,
): Promise<AddFinalizerResult> {
  const ref = refOf(resource, cached);
  let current = cached;
  try {
    return await backOffAbortable(
      async (attempt) => {
        if (attempt > 1) current = await client.get(ref, { signal, live: true });
        const plan = addFinalizerPatch(current, finalizer);
        if (plan.action === 'stop') return { outcome: 'deleting' } as const;
        if (plan.action === 'present') return { outcome: 'present' } as const;
        const object = await client.patch(ref, plan.patch, 'json', { signal });
        return { outcome: 'added', object } as const;
      },
      {
        ...backOffFactory(),
        retry: (err: unknown) => waitRetryAfter(err, retriable(err) || isConflict(err), signal),
      },
      signal,
    );
  } catch (err) {
    if (isNotFound(err)) return { outcome: 'deleting' };
    throw err;
  }
}

/**
 * Removes only `finalizer`: reads the object fresh on every attempt, replaces the finalizer list
 * without ours under a resourceVersion test, and treats NotFound as success. Resolves true when our
 * finalizer was removed here, false when there was nothing to remove.
 * @category Engine: Framework and ControllerCore
 */
export async function removeFinalizer(
  client: ObjectClient,
  resource: ResourceRef,
  obj: KubernetesObject,
  finalizer: string,
  backOffFactory: BackOffFactory,
  signal: AbortSignal,
): Promise<boolean> {
  const ref = refOf(resource, obj);
  try {
    return await backOffAbortable(
      async () => {
        const fresh = await client.get(ref, { signal, live: true });
        if (obj.metadata?.uid !== undefined && fresh.metadata?.uid !== obj.metadata.uid) return false;
        const patch = removeFinalizerPatch(fresh, finalizer);
        if (patch === undefined) return false;
        await client.patch(ref, patch, 'json', { signal });
        return true;
      },
      { ...backOffFactory(), retry: (err: unknown) => waitRetryAfter(err, retriable(err), signal) },
      signal,
    );
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}
