import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileContext } from '../context/reconcile-context.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { clientKey } from '../engine/context-keys.js';
import { hasFinalizer } from '../engine/finalizer-patch.js';
import { addFinalizer, removeFinalizer } from '../engine/finalizers.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { Awaitable } from '../util/awaitable.js';
import { defaultBackOffFactory, type BackOffFactory } from '../util/backoff.js';
import {
  checkFinalizerName,
  defaultFinalizerSupplier,
  finalizerKindOf,
  type FinalizerSupplier,
} from './finalizer-supplier.js';
import type { ResourceWatcher } from './resource-watcher.js';

type Fn<Obj> = (ctx: ReconcileContext, obj: Obj) => Awaitable<void>;

/**
 * Options of an {@link OpinionatedWatcher}.
 * @category Informer controller (grafana-app-sdk)
 */
export interface OpinionatedWatcherOptions<Obj extends KubernetesObject = KubernetesObject> {
  /** The kind watched (names the default finalizer). Required. */
  resource: { apiVersion: string; kind: string };
  /** Finalizer name or supplier. Default {@link defaultFinalizerSupplier} (`operator.{version}.{kind}.{group}`). */
  finalizer?: string | FinalizerSupplier;
  /** Client for the finalizer patches. Default: the controller's (`ctx.get(clientKey)`). */
  client?: ObjectClient;
  /** Backoff of the finalizer patches. Default the engine's. */
  backOffFactory?: BackOffFactory;
  /** A new object (the finalizer is added after it succeeded). */
  add?: Fn<Obj>;
  /** A spec change (generation changed). */
  update?: (ctx: ReconcileContext, old: Obj, obj: Obj) => Awaitable<void>;
  /** The object is being deleted; the finalizer is removed after it succeeded. */
  delete?: Fn<Obj>;
  /** An object handled before (our finalizer present) seen again at start. */
  sync?: Fn<Obj>;
}

/**
 * grafana's `OpinionatedWatcher` with its bugs fixed: the deletion check comes before the generation
 * check (a deleting object is never skipped as "unchanged"), an update of an object missing our
 * finalizer calls `add` only (not also `update`), and finalizer patches are resourceVersion-guarded and
 * keep foreign finalizers. `add` then finalizer for new objects; `sync` for objects seen before
 * (restart); `update` only when the generation changed; `delete` while the finalizer holds the object,
 * the finalizer removed after it succeeded; the final DELETED event is a no-op.
 * @category Informer controller (grafana-app-sdk)
 */
export class OpinionatedWatcher<
  Obj extends KubernetesObject = KubernetesObject,
> implements ResourceWatcher<Obj> {
  readonly finalizer: string;
  addFunc: Fn<Obj> | undefined;
  updateFunc: ((ctx: ReconcileContext, old: Obj, obj: Obj) => Awaitable<void>) | undefined;
  deleteFunc: Fn<Obj> | undefined;
  syncFunc: Fn<Obj> | undefined;
  private readonly client: ObjectClient | undefined;
  private readonly backOffFactory: BackOffFactory;

  constructor(options: OpinionatedWatcherOptions<Obj>) {
    const r = (options as Partial<OpinionatedWatcherOptions<Obj>> | undefined)?.resource;
    if (
      typeof r !== 'object' ||
      typeof r.apiVersion !== 'string' ||
      typeof r.kind !== 'string' ||
      r.kind === ''
    ) {
      throw new InvalidConfigError(
        'new OpinionatedWatcher({ resource: { apiVersion, kind }, … }): resource is required',
      );
    }
    const f = options.finalizer ?? defaultFinalizerSupplier;
    this.finalizer = checkFinalizerName(
      typeof f === 'function' ? f(finalizerKindOf(r.apiVersion, r.kind)) : f,
      'OpinionatedWatcher finalizer',
    );
    this.client = options.client;
    this.backOffFactory = options.backOffFactory ?? defaultBackOffFactory;
    this.addFunc = options.add;
    this.updateFunc = options.update;
    this.deleteFunc = options.delete;
    this.syncFunc = options.sync;
  }

  /** Routes to `watcher`'s methods; with `syncToAdd`, `sync` calls `watcher.add`. */
  wrap(watcher: ResourceWatcher<Obj>, syncToAdd: boolean): void {
    this.addFunc = watcher.add?.bind(watcher);
    this.updateFunc = watcher.update?.bind(watcher);
    this.deleteFunc = watcher.delete?.bind(watcher);
    this.syncFunc = syncToAdd ? watcher.add?.bind(watcher) : undefined;
  }

  async add(ctx: ReconcileContext, obj: Obj): Promise<void> {
    if (obj.metadata?.deletionTimestamp) return this.deleting(ctx, obj);
    if (hasFinalizer(obj, this.finalizer)) {
      await this.syncFunc?.(ctx, obj);
      return;
    }
    await this.addFunc?.(ctx, obj);
    await this.patch(ctx, obj, 'add');
  }

  async update(ctx: ReconcileContext, old: Obj, obj: Obj): Promise<void> {
    if (obj.metadata?.deletionTimestamp) return this.deleting(ctx, obj);
    const ours = hasFinalizer(obj, this.finalizer);
    if (!ours) {
      await this.addFunc?.(ctx, obj);
      await this.patch(ctx, obj, 'add');
      return;
    }
    if (!hasFinalizer(old, this.finalizer)) return; // the update our own patch made
    const generation = obj.metadata?.generation;
    if (generation !== undefined && generation > 0 && generation === old.metadata?.generation) return;
    await this.updateFunc?.(ctx, old, obj);
  }

  /** The final DELETED event: nothing to do (`delete` ran while the finalizer held the object). */
  delete(): void {
    /* no-op */
  }

  private async deleting(ctx: ReconcileContext, obj: Obj): Promise<void> {
    if (!hasFinalizer(obj, this.finalizer)) return;
    await this.deleteFunc?.(ctx, obj);
    await this.patch(ctx, obj, 'remove');
  }

  private async patch(ctx: ReconcileContext, obj: Obj, op: 'add' | 'remove'): Promise<void> {
    const client = this.client ?? ctx.get(clientKey);
    if (client === undefined) {
      throw new InvalidConfigError(
        'OpinionatedWatcher: no client; pass options.client or run it in a controller with an API connection',
      );
    }
    const resource = { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '' };
    if (op === 'add')
      await addFinalizer(client, resource, obj, this.finalizer, this.backOffFactory, ctx.signal);
    else await removeFinalizer(client, resource, obj, this.finalizer, this.backOffFactory, ctx.signal);
  }
}
