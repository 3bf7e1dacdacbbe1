import type { KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { ObjectClient } from '../kube/object-client.js';
import { objectKey, type Store } from '../watch/store.js';
import { ControllerCore } from '../engine/controller-core.js';
import { CrudPassBody } from './crud-pass-body.js';
import type { FrameworkConfig } from './framework-config.js';
import { handleSignals, type HandleSignalsOptions } from '../host/handle-signals.js';
import { resolveFrameworkConfig, type ResolvedFrameworkConfig } from './resolve-config.js';

/**
 * The CRUD front end: watches a kind (and the kinds it owns), keeps the latest object per key in a
 * cache, and runs the object's resource set through a per-key work queue — never two reconciles of one
 * key at once, bursts coalesced, a change during a run gives exactly one more run, errors retried with
 * per-key backoff, finalizers, pause, resync, leader election, metrics, Events and graceful shutdown.
 * The engine is the shared {@link ControllerCore}; this class adds the resource sets.
 * See docs/framework.md and docs/guarantees.md.
 * @category Engine: Framework and ControllerCore
 */
export class Framework<Obj extends KubernetesObject = KubernetesObject> {
  /** The configuration with every default applied. */
  readonly config: ResolvedFrameworkConfig<Obj>;
  /** API client shared with resources (`ctx.get(clientKey)`); undefined without an API connection. */
  readonly client: ObjectClient | undefined;
  /** The engine (for `Operator` and other runners). */
  readonly core: ControllerCore<Obj>;

  constructor(config: FrameworkConfig<Obj>) {
    this.config = resolveFrameworkConfig(config);
    this.core = new ControllerCore<Obj>({
      config: this.config,
      body: new CrudPassBody<Obj>(this.config.router),
      noun: 'framework',
    });
    this.client = this.core.client;
  }

  /** Controller name. */
  get name(): string {
    return this.config.name;
  }

  /** The Prometheus registry holding every metric of this framework. */
  get metrics(): Registry {
    return this.config.registry;
  }

  /** True once every watched kind's first list is in (immediately after start without `resource`). */
  get synced(): boolean {
    return this.core.synced;
  }

  /** True while started, synced and not stopping: the framework reconciles (or stands by as a follower). */
  get ready(): boolean {
    return this.core.ready;
  }

  /** True while this replica runs workers (always, without leader election). */
  get leading(): boolean {
    return this.core.leading;
  }

  /** Base URL of the health server once listening (`http://127.0.0.1:8080`), else undefined. */
  get healthUrl(): string | undefined {
    return this.core.healthUrl;
  }

  /**
   * The cache of `kind` (the reconciled kind or one in `owns`), or undefined when not watched. Give
   * `apiVersion` when two watched groups have a kind of that name.
   */
  cache(kind: string, apiVersion?: string): Store | undefined {
    return this.core.cache(kind, apiVersion);
  }

  /** Informer drop-in: remembers `newObj` and enqueues its key (level-triggered: the latest wins). */
  updateFunc(_oldObj: Obj | undefined, newObj: Obj): void {
    this.core.updateFunc(objectKey(newObj), newObj);
  }

  /** Informer drop-in: forgets `obj`; with finalizers off its delete path runs with this last state. */
  deleteFunc(obj: Obj): void {
    this.core.deleteFunc(objectKey(obj), obj);
  }

  /** Starts watching and reconciling; resolves once the caches are synced and workers run (or stand by). */
  start(): Promise<void> {
    return this.core.start();
  }

  /**
   * Stops gracefully: takes no new work, lets in-flight reconciles finish (up to
   * `gracefulShutdownMs`, then aborts them through their signal), releases the Lease, closes watches
   * and servers. Nothing keeps the process alive afterwards. Idempotent.
   */
  stop(): Promise<void> {
    return this.core.stop();
  }

  /**
   * Stops this framework gracefully on SIGTERM/SIGINT and exits 0; a second signal exits at once.
   * Returns a function removing the handlers. See also `runUntilSignal`.
   */
  handleSignals(options: HandleSignalsOptions = {}): () => void {
    return handleSignals(this, { logger: this.core.logger, ...options }).dispose;
  }
}
