import type { KubernetesObject } from '@kubernetes/client-node';
import { isNotFound } from '../kube/api-error.js';
import type { KubeRequest } from '../kube/kube-transport.js';
import type { ObjectClient } from '../kube/object-client.js';
import { readOnlyTransport } from './planning-client.js';
import { currentScope } from './http-guard.js';

/**
 * One write a planned pass made, as the API server answered it with `dryRun=All`: the object before
 * (undefined when it did not exist) and what the write would make of it (undefined for a delete that
 * removes it at once).
 */
export interface DryRunWrite {
  method: KubeRequest['method'];
  /** Request path (`/api/v1/namespaces/ns/configmaps/name`, `/status` for status writes). */
  path: string;
  before: KubernetesObject | undefined;
  after: KubernetesObject | undefined;
}

function isObject(v: unknown): v is KubernetesObject {
  return typeof v === 'object' && v !== null && 'kind' in v && (v as { kind?: unknown }).kind !== 'Status';
}

/** The object's own path for a write path (a subresource's write reads the whole object). */
function objectPath(req: KubeRequest): string | undefined {
  if (req.method === 'POST') return undefined;
  return req.path.endsWith('/status') ? req.path.slice(0, -'/status'.length) : req.path;
}

/**
 * A view of `client` (same connections, discovery cache) whose every write carries `dryRun=All`: the API
 * server validates, defaults and admits it, answers with the object it would store, and stores nothing.
 * Each write is reported to `record` with the object as it was before. Reads pass through; the fence of
 * leader election is not checked (nothing is written).
 */
export function dryRunClient(client: ObjectClient, record: (write: DryRunWrite) => void): ObjectClient {
  const real = client.transport;
  const transport = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'open') {
        // A raw response stream (watches): a write through it would skip dryRun, so only GET opens.
        const guarded = readOnlyTransport(target, false, (what) => currentScope()?.refused.push(what));
        return guarded.open.bind(guarded);
      }
      if (prop !== 'request') {
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return async (req: KubeRequest): Promise<unknown> => {
        if (req.method === 'GET') return target.request(req);
        const path = objectPath(req);
        let before: KubernetesObject | undefined;
        if (path !== undefined) {
          try {
            before = (await target.request({
              method: 'GET',
              path,
              ...(req.signal === undefined ? {} : { signal: req.signal }),
            })) as KubernetesObject;
          } catch (err) {
            if (!isNotFound(err)) throw err;
          }
        }
        const dry: KubeRequest = { ...req, query: { ...req.query, dryRun: 'All' } };
        // A DELETE's body (DeleteOptions) wins over its query on the API server: it carries dryRun too.
        if (req.method === 'DELETE' && typeof req.body === 'object' && req.body !== null) {
          dry.body = { ...req.body, dryRun: ['All'] };
        }
        const answer = await target.request(dry);
        record({ method: req.method, path: req.path, before, after: isObject(answer) ? answer : undefined });
        return answer;
      };
    },
  });
  const view = Object.create(client) as ObjectClient;
  Object.defineProperty(view, 'transport', { value: transport });
  view.fence = undefined;
  Object.defineProperty(view, 'unfenced', { value: () => view });
  // The view shares the real client's connections: closing it must not close them.
  Object.defineProperty(view, 'close', { value: () => undefined });
  return view;
}
