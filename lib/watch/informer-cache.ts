import type { KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { ResourceRef } from '../kube/resource-ref.js';
import type { Logger } from '../observability/logger.js';
import { silentLogger } from '../observability/logger-silent.js';
import { Informer } from './informer.js';
import { checkIndexFunc, checkIndexName, type IndexFunc } from './field-index.js';

/**
 * What to watch through an {@link InformerCache}. With `metadataOnly` the informer lists and watches
 * `PartialObjectMetadata` and its store holds apiVersion, kind and metadata only (a separate informer from
 * a full one of the same kind).
 * @category Watch and cache
 */
export type InformerSource = ResourceRef & {
  /** Several namespaces, one list and watch each, one store (instead of `namespace`). */
  namespaces?: readonly string[];
  labelSelector?: string;
  fieldSelector?: string;
  metadataOnly?: boolean;
};

/**
 * Options of an {@link InformerCache}.
 * @category Watch and cache
 */
export interface InformerCacheOptions {
  /** Client for every list and watch. Required. */
  client: ObjectClient;
  /** Logger of the watches. Default: silent. */
  logger?: Logger;
  /** Registry for the watch metrics (`reconcilekit_watch_*`). Default: none. */
  registry?: Registry;
  /** Keep `metadata.managedFields` on cached objects. Default false (see WatcherOptions.keepManagedFields). */
  keepManagedFields?: boolean;
  /** Stream initial lists through watches where served (see WatcherOptions.watchList). Default true. */
  watchList?: boolean;
}

interface Entry {
  informer: Informer;
  users: number;
}

/**
 * Shared informers for the controllers of one process (controller-runtime's cache): controllers that
 * watch the same apiVersion, kind, namespace and selectors get the same started `Informer` — one list,
 * one watch, one store — reference-counted and stopped when its last user releases it.
 *
 * The key includes the version, not only the group: two versions of a kind are served with different
 * shapes, and an informer hands its objects out unconverted.
 * @category Watch and cache
 */
export class InformerCache {
  private readonly o: InformerCacheOptions;
  private readonly entries = new Map<string, Entry>();
  private readonly keys = new WeakMap<Informer, string>();
  /** Field indexes per group and kind (`indexField`), applied to every informer of that kind. */
  private readonly indexes = new Map<string, Map<string, IndexFunc>>();

  constructor(options: InformerCacheOptions) {
    const client: unknown = (options as Partial<InformerCacheOptions> | null | undefined)?.client;
    if (
      typeof client !== 'object' ||
      client === null ||
      typeof (client as ObjectClient).list !== 'function'
    ) {
      throw new InvalidConfigError('new InformerCache({ client }): client must be an ObjectClient');
    }
    this.o = options;
  }

  /** The client the informers list and watch with. */
  get client(): ObjectClient {
    return this.o.client;
  }

  /** Number of distinct informers in use (for tests and the debug page). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The started informer for `source`, shared with every other user of the same source. Give it back
   * with {@link release} when done (each `acquire` needs one `release`).
   */
  acquire<T extends KubernetesObject = KubernetesObject>(source: InformerSource): Informer<T> {
    const key = informerKey(source);
    let entry = this.entries.get(key);
    if (entry === undefined) {
      const informer = new Informer({
        client: this.o.client,
        resource: { ...source },
        logger: (this.o.logger ?? silentLogger()).child({ watch: source.kind }),
        ...(this.o.registry === undefined ? {} : { registry: this.o.registry }),
        ...(this.o.keepManagedFields === true ? { keepManagedFields: true } : {}),
        ...(this.o.watchList === false ? { watchList: false } : {}),
      });
      entry = { informer, users: 0 };
      this.entries.set(key, entry);
      this.keys.set(informer, key);
      for (const [name, fn] of this.indexes.get(groupKindOf(source)) ?? []) {
        informer.store.addIndex(name, fn, source.kind);
      }
      informer.start();
    }
    entry.users += 1;
    return entry.informer as unknown as Informer<T>;
  }

  /**
   * Adds field index `name` to the cache of `kind` (controller-runtime's `IndexField`): every informer of
   * that group and kind — running now or started later, any namespace or selector — indexes its objects by
   * `fn`, and reads find them by value in time proportional to the matches: `store.byIndex(name, value)`,
   * or `client.list(ref, { matchingFields: { [name]: value } })` with the client of a reconcile context.
   * The same function again is a no-op; another function under a taken name is refused.
   */
  indexField<T extends KubernetesObject = KubernetesObject>(
    kind: { apiVersion: string; kind: string },
    name: string,
    fn: IndexFunc<T>,
  ): void {
    if (
      typeof kind !== 'object' ||
      typeof kind.apiVersion !== 'string' ||
      typeof kind.kind !== 'string' ||
      kind.kind === ''
    ) {
      throw new InvalidConfigError(
        "indexField(kind, name, fn): kind must be { apiVersion, kind }, e.g. { apiVersion: 'v1', kind: 'Secret' }",
      );
    }
    checkIndexName(name);
    checkIndexFunc(fn, name);
    const gk = groupKindOf(kind);
    const known = this.indexes.get(gk) ?? new Map<string, IndexFunc>();
    const existing = known.get(name);
    if (existing !== undefined && existing !== fn) {
      throw new InvalidConfigError(
        `field index "${name}" on ${kind.kind} is already registered with another function: give this one another name`,
      );
    }
    for (const { informer } of this.entries.values()) {
      if (groupKindOf(informer.source) === gk) informer.store.addIndex(name, fn as IndexFunc, kind.kind);
    }
    known.set(name, fn as IndexFunc);
    this.indexes.set(gk, known);
  }

  /** Returns an informer from {@link acquire}; the last release stops its watch. */
  async release(informer: Informer): Promise<void> {
    const key = this.keys.get(informer);
    if (key === undefined) return;
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    entry.users -= 1;
    if (entry.users > 0) return;
    this.entries.delete(key);
    this.keys.delete(informer);
    await entry.informer.stop();
  }

  /** Stops every informer at once (process shutdown). */
  async stop(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.allSettled(all.map((e) => e.informer.stop()));
  }
}

/**
 * The identity of a watch: apiVersion, kind, namespace (or namespaces), selectors and metadata-only.
 * @category Watch and cache
 */
export function informerKey(source: InformerSource): string {
  return [
    source.apiVersion,
    source.kind,
    source.namespace ?? '',
    [...(source.namespaces ?? [])].sort().join(','),
    source.labelSelector ?? '',
    source.fieldSelector ?? '',
    source.metadataOnly === true ? 'metadata' : '',
  ].join('\u0000');
}

/** Group and kind of a source (versions share one index registration). */
function groupKindOf(ref: { apiVersion: string; kind: string }): string {
  const slash = ref.apiVersion.lastIndexOf('/');
  return `${slash < 0 ? '' : ref.apiVersion.slice(0, slash)}/${ref.kind}`;
}
