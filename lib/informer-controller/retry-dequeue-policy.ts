import type { KubernetesObject } from '@kubernetes/client-node';
import type { ResourceAction } from './resource-action.js';

/**
 * Asked, for each pending retry of one handler for one object, when a new event for that object
 * arrives: true drops the retry, false keeps it. Without a policy every pending retry of the handler
 * is dropped (the new event supersedes it). `retryError` is the error of the retry's last failed call
 * (grafana lost it after the first re-queue).
 * @category Informer controller (grafana-app-sdk)
 */
export type RetryDequeuePolicy = (
  newAction: ResourceAction,
  newObject: KubernetesObject,
  retryAction: ResourceAction,
  retryObject: KubernetesObject,
  retryError: unknown,
) => boolean;

/**
 * grafana-app-sdk's `OpinionatedRetryDequeuePolicy`: a delete drops the retry; a different action keeps
 * it (a pending create retry survives an update); the same generation keeps it (a metadata- or
 * status-only change does not supersede it); otherwise (a newer spec) it is dropped.
 * @category Informer controller (grafana-app-sdk)
 */
export const opinionatedRetryDequeuePolicy: RetryDequeuePolicy = (
  newAction,
  newObject,
  retryAction,
  retryObject,
) => {
  if (newAction === 'DELETE') return true;
  if (newAction !== retryAction) return false;
  if (newObject.metadata?.generation === retryObject.metadata?.generation) return false;
  return true;
};
