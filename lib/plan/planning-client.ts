import type { ObjectClient } from '../kube/object-client.js';
import type { KubeRequest, KubeTransport } from '../kube/kube-transport.js';

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
      if (prop === 'transport') return readOnlyTransport(target.transport);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      if (READS.has(prop)) return (value as (...a: unknown[]) => unknown).bind(target);
      if (prop === 'unfenced') return () => planningClient(target);
      return () => {
        throw new NotPlannableError(`${prop}: a plan never writes to the API server`);
      };
    },
  });
}

/**
 * `transport` as a plan hands it out: `request` and `open` with any method but GET throw
 * {@link NotPlannableError} before anything is sent (code reaching past the client's methods to its
 * transport writes nothing either). `allowDryRun`: a request carrying `dryRun=All` passes. `onRefused`
 * hears each refused request (`POST /api/v1/…`).
 */
export function readOnlyTransport(
  transport: KubeTransport,
  allowDryRun = false,
  onRefused?: (what: string) => void,
): KubeTransport {
  const refuse = (req: KubeRequest): void => {
    if (req.method === 'GET') return;
    if (allowDryRun && req.query?.dryRun === 'All') return;
    onRefused?.(`${req.method} ${req.path}`);
    throw new NotPlannableError(
      `transport ${req.method} ${req.path}: a plan never writes to the API server (only dryRun=All writes through the plan's client)`,
    );
  };
  return new Proxy(transport, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      const fn = (value as (...a: unknown[]) => unknown).bind(target);
      if (prop !== 'request' && prop !== 'open') return fn;
      return (req: KubeRequest, ...rest: unknown[]) => {
        try {
          refuse(req);
        } catch (err) {
          return Promise.reject(err instanceof Error ? err : new Error(String(err)));
        }
        return fn(req, ...rest);
      };
    },
  });
}
