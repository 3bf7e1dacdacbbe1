import type { KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { ObjectClient } from '../kube/object-client.js';
import type { ResourceRef } from '../kube/resource-ref.js';
import type { Logger } from '../observability/logger.js';
import { Informer } from '../watch/informer.js';
import { objectKey, type Store } from '../watch/store.js';
import type { FrameworkResource, OwnedResource } from './framework-config.js';
import { ownerKeys } from './owner-keys.js';
import { retryWithHints } from './retry-with-hints.js';

/** Longest timer Node accepts (a larger one fires at once); "wait forever" is capped to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Where the watches report, in work-queue keys. */
export interface WatchSetHandlers<Obj> {
  /** The reconciled object was added or changed. */
  changed(key: string, obj: Obj): void;
  /** The reconciled object is gone (last known state). */
  deleted(key: string, obj: Obj): void;
  /** An owned object changed: its owner (by key) needs a pass. */
  ownerTouched(key: string): void;
}

/**
 * The informers of one framework: the reconciled kind and every owned kind, with their caches, mapped
 * to work-queue keys (owned objects → their owner, by ownerReference).
 */
export class WatchSet<Obj extends KubernetesObject> {
  private readonly informers = new Map<string, Informer>();
  private primaryInformer: Informer<Obj> | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly registry: Registry,
  ) {}

  /** Cache of the reconciled kind (undefined before `start`). */
  get primary(): Store<Obj> | undefined {
    return this.primaryInformer?.store;
  }

  /** Cache of `kind` (reconciled or owned), or undefined when not watched. */
  cache(kind: string): Store | undefined {
    return this.informers.get(kind)?.store;
  }

  /** The first watch currently failing, as a readiness reason. */
  problem(): string | undefined {
    for (const [kind, informer] of this.informers) {
      const err = informer.watcher.lastSyncError;
      if (err !== undefined) return `watch of ${kind} failing: ${err.message}`;
    }
    return undefined;
  }

  /**
   * Resolves the kind (retrying with a clear log line while it is not served), starts every watch and
   * resolves once all caches are synced; rejects when `deadline` aborts or after `syncTimeoutMs` (0 = never).
   */
  async start(
    client: ObjectClient,
    resource: FrameworkResource,
    owns: readonly OwnedResource[],
    handlers: WatchSetHandlers<Obj>,
    deadline: AbortSignal,
    syncTimeoutMs: number,
  ): Promise<void> {
    const resolved = await retryWithHints(
      `watching ${resource.kind} (${resource.apiVersion})`,
      this.logger,
      deadline,
      () => client.resolve(resource),
    );
    const primary = this.add<Obj>(client, { ...resource, plural: resource.plural ?? resolved.plural });
    this.primaryInformer = primary;
    primary.on('add', (obj) => {
      handlers.changed(objectKey(obj), obj);
    });
    primary.on('update', (_old, obj) => {
      handlers.changed(objectKey(obj), obj);
    });
    primary.on('delete', (obj) => {
      handlers.deleted(objectKey(obj), obj);
    });
    for (const owned of owns) {
      const ref: ResourceRef & { labelSelector?: string } = { ...owned };
      if (ref.namespace === undefined && resource.namespace !== undefined) ref.namespace = resource.namespace;
      const informer = this.add(client, ref);
      const touch = (obj: KubernetesObject): void => {
        for (const key of ownerKeys(obj, resource, resolved.namespaced)) handlers.ownerTouched(key);
      };
      informer.on('add', touch);
      informer.on('update', (old, obj) => {
        touch(old);
        touch(obj);
      });
      informer.on('delete', touch);
    }
    for (const informer of this.informers.values()) informer.start();
    const timeout = syncTimeoutMs > 0 ? Math.min(syncTimeoutMs, MAX_TIMER_MS) : MAX_TIMER_MS;
    await Promise.all(
      [...this.informers.values()].map((informer) => informer.waitForSync(deadline, timeout)),
    );
  }

  /** Stops every watch. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.informers.values()].map((informer) => informer.stop()));
  }

  private add<T extends KubernetesObject>(
    client: ObjectClient,
    ref: ResourceRef & { labelSelector?: string; fieldSelector?: string },
  ): Informer<T> {
    const informer = new Informer<T>({
      client,
      resource: ref,
      logger: this.logger.child({ watch: ref.kind }),
      registry: this.registry,
    });
    this.informers.set(ref.kind, informer as unknown as Informer);
    return informer;
  }
}
