import type { KubernetesObject } from '@kubernetes/client-node';
import type { ListOptions, ObjectList } from './object-client.js';
import type { ObjectRef, ResourceRef } from './resource-ref.js';

/**
 * What lets an {@link ObjectClient} answer reads from a cache instead of the API server, and keeps that
 * cache honest about the client's own writes (read-your-own-writes). The engine gives the client in every
 * reconcile context one over its shared informers (`CachedReads`, lib/watch).
 * @category Kubernetes client
 */
export interface CacheReader {
  /**
   * The object from the cache (a copy the caller may change), or undefined when the cache does not serve
   * this read (the client then reads live). Rejects with a 404 {@link ApiError} when the cache serves the
   * read and holds no such object.
   */
  get(ref: ObjectRef, signal: AbortSignal | undefined): Promise<KubernetesObject | undefined>;
  /** The matching objects from the cache (copies), or undefined when the cache does not serve this list. */
  list(ref: ResourceRef, opts: ListOptions): Promise<ObjectList<KubernetesObject> | undefined>;
  /**
   * This client is sending a create, update or patch of the object `ref` names; the returned function is
   * called once the write is over (after {@link wrote} when answered, or when it failed). Optional.
   */
  writing?(ref: ObjectRef): () => void;
  /** The server's answer to a create, update or patch this client made: later reads see it. */
  wrote(obj: KubernetesObject): void;
  /** An object this client deleted (and the server removed): later reads see it gone. */
  removed(ref: ObjectRef): void;
}
