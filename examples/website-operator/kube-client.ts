import type { KubernetesObject } from '@kubernetes/client-node';
import {
  clientKey,
  isNotFound,
  type ObjectClient,
  type ObjectRef,
  type ReconcileContext,
} from 'reconcilekit';

/**
 * The part of reconcilekit's `ObjectClient` the Website resources use. Naming it keeps each resource's
 * dependencies visible and lets a test hand in a narrower double if it wants to.
 */
export type WebsiteClient = Pick<ObjectClient, 'get' | 'create' | 'replace' | 'patch' | 'delete'>;

/**
 * The client a resource uses in this reconciliation: the one it was given, else the Framework's own
 * (`ctx.get(clientKey)`: shared keep-alive connections, the Framework's credentials).
 */
export function clientFor(ctx: ReconcileContext, configured: WebsiteClient | undefined): WebsiteClient {
  const client = configured ?? ctx.get(clientKey);
  if (client === undefined) {
    throw new Error(
      'no API client: give the resource a client, or run it under a Framework with a kubeConfig',
    );
  }
  return client;
}

/** Reads one object; a NotFound answer is `undefined` (the object simply does not exist yet). */
export async function getIfExists<T extends KubernetesObject>(
  client: WebsiteClient,
  ref: ObjectRef,
  signal: AbortSignal,
): Promise<T | undefined> {
  try {
    return await client.get<T>(ref, { signal });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** Deletes one object; NotFound is success (it is already gone, which is what we wanted). */
export async function deleteIfExists(
  client: WebsiteClient,
  ref: ObjectRef,
  signal: AbortSignal,
): Promise<void> {
  try {
    await client.delete(ref, { signal, propagationPolicy: 'Background' });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}

/** The {@link ObjectRef} of a built-in child object (`apiVersion`, `kind`, `plural` known up front). */
export function childRef(obj: KubernetesObject, plural: string): ObjectRef & { namespace: string } {
  const name = obj.metadata?.name;
  const namespace = obj.metadata?.namespace;
  if (
    obj.apiVersion === undefined ||
    obj.kind === undefined ||
    name === undefined ||
    namespace === undefined
  ) {
    throw new Error('child object needs apiVersion, kind, metadata.name and metadata.namespace');
  }
  return { apiVersion: obj.apiVersion, kind: obj.kind, plural, name, namespace };
}
