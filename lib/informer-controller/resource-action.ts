import type { ReconcileAction } from '../controller/reconcile-types.js';

/**
 * What happened to an object, as an informer event (grafana-app-sdk's `ResourceAction`).
 * @category Informer controller (grafana-app-sdk)
 */
export type ResourceAction = 'CREATE' | 'UPDATE' | 'DELETE';

/** The {@link ResourceAction} values by name. */
export const ResourceAction = Object.freeze({
  Create: 'CREATE',
  Update: 'UPDATE',
  Delete: 'DELETE',
} as const);

/**
 * The reconcile action of an event: CREATE → `created`, UPDATE → `updated`, DELETE → `deleted`;
 * undefined for anything else (grafana's `ReconcileActionUnknown`).
 * @category Informer controller (grafana-app-sdk)
 */
export function reconcileActionFromResourceAction(action: ResourceAction): ReconcileAction | undefined {
  switch (action) {
    case 'CREATE':
      return 'created';
    case 'UPDATE':
      return 'updated';
    case 'DELETE':
      return 'deleted';
    default:
      return undefined;
  }
}

/**
 * The event of a reconcile action: `created` → CREATE, `updated` → UPDATE, `deleted` → DELETE;
 * undefined for `resynced` (grafana returns `""`: a resync is no informer event).
 * @category Informer controller (grafana-app-sdk)
 */
export function resourceActionFromReconcileAction(action: ReconcileAction): ResourceAction | undefined {
  switch (action) {
    case 'created':
      return 'CREATE';
    case 'updated':
      return 'UPDATE';
    case 'deleted':
      return 'DELETE';
    default:
      return undefined;
  }
}
