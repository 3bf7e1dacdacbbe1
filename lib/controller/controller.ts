import type { KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { ControllerCore } from '../engine/controller-core.js';
import { handleSignals, type HandleSignalsOptions } from '../host/handle-signals.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { Store } from '../watch/store.js';
import type { ControllerConfig } from './controller-config.js';
import { ReconcilerPassBody } from './reconciler-pass-body.js';
import { resolveControllerConfig, type ResolvedControllerConfig } from './resolve-controller-config.js';

/**
 * The reconcile-function front end (controller-runtime's model): one function — or `{ reconcile,
 * cleanup }` — called with the latest object of a key whenever it, an owned object or a mapped source
 * changes. Runs on the same engine as `Framework` (`ControllerCore`): level-triggered, never two calls
 * for one key at once, bursts coalesced, retries with per-key backoff or a `retryPolicy`, finalizer
 * managed when `cleanup` is given. See docs/controller.md.
 * @category Controllers (reconcile functions)
 */
export class Controller<Obj extends KubernetesObject = KubernetesObject> {
  /** The configuration with every default applied. */
  readonly config: ResolvedControllerConfig<Obj>;
  /** The engine (for `Operator` and other runners). */
  readonly core: ControllerCore<Obj>;

  constructor(config: ControllerConfig<Obj>) {
    this.config = resolveControllerConfig(config);
    this.core = new ControllerCore<Obj>({
      config: this.config,
      body: new ReconcilerPassBody<Obj>(this.config.reconciler),
      noun: 'controller',
      watches: this.config.watches,
      predicates: this.config.predicates,
    });
  }

  /** Controller name. */
  get name(): string {
    return this.config.name;
  }

  /** API client (`ctx.get(clientKey)` in the reconciler). */
  get client(): ObjectClient | undefined {
    return this.core.client;
  }

  /** The Prometheus registry holding every metric of this controller. */
  get metrics(): Registry {
    return this.config.registry;
  }

  /** True once every watched kind's first list is in. */
  get synced(): boolean {
    return this.core.synced;
  }

  /** True while started, synced and not stopping. */
  get ready(): boolean {
    return this.core.ready;
  }

  /** True while this replica runs workers (always, without leader election). */
  get leading(): boolean {
    return this.core.leading;
  }

  /** Base URL of the health server once listening, else undefined. */
  get healthUrl(): string | undefined {
    return this.core.healthUrl;
  }

  /** The cache of a watched kind (`resource`, `owns`, `watches`); `apiVersion` tells groups apart. */
  cache(kind: string, apiVersion?: string): Store | undefined {
    return this.core.cache(kind, apiVersion);
  }

  /** Runs a pass for `key` (`namespace/name`): a manual trigger, e.g. from an external system's webhook. */
  enqueue(key: string): void {
    this.core.enqueue(key);
  }

  /** Starts watching and reconciling; resolves once the caches are synced and workers run (or stand by). */
  start(): Promise<void> {
    return this.core.start();
  }

  /** Stops gracefully (see docs/shutdown.md). Idempotent. */
  stop(): Promise<void> {
    return this.core.stop();
  }

  /** Stops gracefully on SIGTERM/SIGINT and exits 0. Returns a function removing the handlers. */
  handleSignals(options: HandleSignalsOptions = {}): () => void {
    return handleSignals(this, { logger: this.core.logger, ...options }).dispose;
  }
}
