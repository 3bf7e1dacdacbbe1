import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileContext } from '../context/reconcile-context.js';
import { ReconcileError } from '../controller/reconcile-error.js';
import type { ReconcileRequest, ReconcileResult, Reconciler } from '../controller/reconcile-types.js';
import { InvalidConfigError } from '../errors/invalid-config-error.js';
import { clientKey } from '../engine/context-keys.js';
import { hasFinalizer } from '../engine/finalizer-patch.js';
import { addFinalizer, removeFinalizer } from '../engine/finalizers.js';
import type { ObjectClient } from '../kube/object-client.js';
import { defaultBackOffFactory, type BackOffFactory } from '../util/backoff.js';
import { checkFinalizerName } from './finalizer-supplier.js';

/**
 * State key marking a call whose delegate succeeded but whose finalizer patch failed.
 * @category Informer controller (grafana-app-sdk)
 */
export const OPINIONATED_STATE_KEY = 'reconcilekit.io/opinionated-pending';

/**
 * Options of an {@link OpinionatedReconciler}.
 * @category Informer controller (grafana-app-sdk)
 */
export interface OpinionatedReconcilerOptions<Obj extends KubernetesObject = KubernetesObject> {
  /** Finalizer name (checked: qualified name, ≤ 63 characters). Required. */
  finalizer: string;
  /** The reconciler to delegate to (or set later with `wrap`). Default none: calls succeed. */
  reconciler?: Reconciler<Obj>;
  /** Client for the finalizer patches. Default: the controller's (`ctx.get(clientKey)`). */
  client?: ObjectClient;
  /** Backoff of the finalizer patches (conflicts re-read the object). Default the engine's. */
  backOffFactory?: BackOffFactory;
}

type Result = ReconcileResult | undefined;

/**
 * grafana's `OpinionatedReconciler`, with its finalizer bugs fixed: a `created` event for an object
 * already carrying our finalizer is delegated as `resynced` (a restart, not a creation); a new object
 * gets the finalizer after the delegate succeeded; while the object is being deleted the delegate runs
 * as `deleted` **while the finalizer still holds it** (a failing cleanup keeps the object) and the
 * finalizer goes only after it succeeded; the final DELETED event is not delegated; an update of an
 * object without our finalizer only adds it. Patches are resourceVersion-guarded and keep foreign
 * finalizers. A failed patch returns a `ReconcileError` with a state marker, so the retry only patches.
 * @category Informer controller (grafana-app-sdk)
 */
export class OpinionatedReconciler<
  Obj extends KubernetesObject = KubernetesObject,
> implements Reconciler<Obj> {
  readonly finalizer: string;
  private delegate: Reconciler<Obj> | undefined;
  private readonly client: ObjectClient | undefined;
  private readonly backOffFactory: BackOffFactory;

  constructor(options: OpinionatedReconcilerOptions<Obj>) {
    if (typeof options !== 'object' || (options as unknown) === null) {
      throw new InvalidConfigError(
        'new OpinionatedReconciler({ finalizer, reconciler? }): options must be an object',
      );
    }
    this.finalizer = checkFinalizerName(options.finalizer, 'OpinionatedReconciler finalizer');
    this.delegate = options.reconciler;
    this.client = options.client;
    this.backOffFactory = options.backOffFactory ?? defaultBackOffFactory;
  }

  /** Delegates to `reconciler` from now on. */
  wrap(reconciler: Reconciler<Obj>): void {
    this.delegate = reconciler;
  }

  async reconcile(ctx: ReconcileContext, req: ReconcileRequest<Obj>): Promise<Result> {
    const obj = req.object;
    if (req.action === 'deleted') return undefined; // handled while the finalizer held the object
    const ours = hasFinalizer(obj, this.finalizer);
    const pending = req.state?.[OPINIONATED_STATE_KEY];
    if (obj.metadata?.deletionTimestamp) {
      if (!ours) return undefined; // not ours, or already cleaned up
      if (pending !== 'remove') {
        const result = await this.call(ctx, { ...req, action: 'deleted' });
        if (result?.requeueAfterMs !== undefined) return result;
      }
      await this.patch(ctx, obj, 'remove');
      return undefined;
    }
    if (req.action === 'created' && ours) return this.call(ctx, { ...req, action: 'resynced' });
    if (req.action === 'created') {
      if (pending !== 'add') {
        const result = await this.call(ctx, req);
        if (result?.requeueAfterMs !== undefined) return result;
      }
      await this.patch(ctx, obj, 'add');
      return undefined;
    }
    if (!ours) {
      await this.patch(ctx, obj, 'add'); // the update this causes is delegated
      return undefined;
    }
    return this.call(ctx, req);
  }

  private async call(ctx: ReconcileContext, req: ReconcileRequest<Obj>): Promise<Result> {
    if (this.delegate === undefined) return undefined;
    return (await this.delegate.reconcile(ctx, req)) ?? undefined;
  }

  private async patch(ctx: ReconcileContext, obj: Obj, op: 'add' | 'remove'): Promise<void> {
    const client = this.client ?? ctx.get(clientKey);
    if (client === undefined) {
      throw new InvalidConfigError(
        'OpinionatedReconciler: no client; pass options.client or run it in a controller with an API connection',
      );
    }
    const resource = { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '' };
    try {
      if (op === 'add')
        await addFinalizer(client, resource, obj, this.finalizer, this.backOffFactory, ctx.signal);
      else await removeFinalizer(client, resource, obj, this.finalizer, this.backOffFactory, ctx.signal);
    } catch (err) {
      throw new ReconcileError(`${op === 'add' ? 'adding' : 'removing'} finalizer ${this.finalizer} failed`, {
        cause: err,
        state: { [OPINIONATED_STATE_KEY]: op },
      });
    }
  }
}
