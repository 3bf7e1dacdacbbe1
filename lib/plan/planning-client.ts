import type { ObjectClient } from '../kube/object-client.js';

/**
 * Thrown when planned code tries to change the cluster through the planning client: the plan reports the
 * object "not plannable" instead of executing the write.
 * @category Plan
 */
export class NotPlannableError extends Error {
  override readonly name = 'NotPlannableError';
}

const READS = new Set([
  'get',
  'list',
  'watch',
  'resolve',
  'hasSubresource',
  'definingCrds',
  'servedKinds',
  'path',
]);

/**
 * The client a plan hands to user code: reads pass through to `client`, every write (create, replace,
 * patch, apply, delete, …) throws {@link NotPlannableError} before a request is sent.
 */
export function planningClient(client: ObjectClient): ObjectClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      if (READS.has(prop)) return (value as (...a: unknown[]) => unknown).bind(target);
      if (prop === 'unfenced') return () => planningClient(target);
      return () => {
        throw new NotPlannableError(`${prop}: a plan never writes to the API server`);
      };
    },
  });
}
