import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { isNotFound } from './api-error.js';
import type { ObjectClient } from './object-client.js';

/**
 * What {@link createOrUpdate} did.
 * @category Kubernetes client
 */
export type CreateOrUpdateResult = 'created' | 'updated' | 'unchanged';

/**
 * Options of {@link createOrUpdate}.
 * @category Kubernetes client
 */
export interface CreateOrUpdateOptions {
  /** Plural resource name; skips discovery. Default: resolved through discovery. */
  plural?: string;
  /** Aborts the requests. */
  signal?: AbortSignal;
  /** Field manager of the write. Default: the client's (`reconcilekit`). */
  fieldManager?: string;
}

/**
 * controller-runtime's `CreateOrUpdate`: reads the object named by `obj` (apiVersion, kind,
 * metadata.namespace, metadata.name); when it is missing, calls `mutate` on `obj` and creates it; when it
 * exists, calls `mutate` on what was read and replaces it only if `mutate` changed something (the read
 * `resourceVersion` guards the write: a concurrent change gives a Conflict to retry). Resolves with what it
 * did and the object the server returned (or read, when unchanged).
 *
 * `mutate` sets the fields you own (spec, labels, owner reference) and keeps everything else, so fields
 * the server or others set survive. Changing the name or namespace in `mutate` is an `InvalidConfigError`.
 * @category Kubernetes client
 */
export async function createOrUpdate<T extends KubernetesObject>(
  client: Pick<ObjectClient, 'get' | 'create' | 'replace'>,
  obj: T,
  mutate: (obj: T) => void | Promise<void>,
  options: CreateOrUpdateOptions = {},
): Promise<{ result: CreateOrUpdateResult; object: T }> {
  const { apiVersion, kind } = obj;
  const name = obj.metadata?.name;
  const namespace = obj.metadata?.namespace;
  if (apiVersion === undefined || kind === undefined || name === undefined || name === '') {
    throw new InvalidConfigError('createOrUpdate needs an object with apiVersion, kind and metadata.name');
  }
  const ref = {
    apiVersion,
    kind,
    name,
    ...(namespace === undefined ? {} : { namespace }),
    ...(options.plural === undefined ? {} : { plural: options.plural }),
  };
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const write = {
    ...signal,
    ...(options.fieldManager === undefined ? {} : { fieldManager: options.fieldManager }),
  };
  const checkKey = (mutated: T): void => {
    if (mutated.metadata?.name !== name || mutated.metadata.namespace !== namespace) {
      throw new InvalidConfigError(
        `createOrUpdate: mutate must not change the name or namespace of ${kind} ${namespace ?? ''}/${name}`,
      );
    }
  };
  let current: T;
  try {
    current = await client.get<T>(ref, signal);
  } catch (e) {
    if (!isNotFound(e)) throw e;
    await mutate(obj);
    checkKey(obj);
    return { result: 'created', object: await client.create(obj, write) };
  }
  const before = structuredClone(current);
  await mutate(current);
  checkKey(current);
  if (isDeepStrictEqual(before, current)) return { result: 'unchanged', object: current };
  return { result: 'updated', object: await client.replace(current, write) };
}
