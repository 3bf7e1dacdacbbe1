import { defineContextKey, type ContextKey } from '../context/context-key.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { Store } from '../watch/store.js';

/**
 * The framework's API client (shared keep-alive connections), set in every reconciliation's context
 * when the framework has an API connection: `ctx.get(clientKey)`.
 */
export const clientKey: ContextKey<ObjectClient> = defineContextKey<ObjectClient>('reconcilekit.client');

/**
 * Cached reads of the reconciled kind and of every kind in `config.owns`:
 * `ctx.get(cacheKey)?.('ConfigMap')?.byOwnerUid(obj.metadata.uid)`. Reading owned objects from this
 * cache instead of the API server is what makes a reconcile cheap (controller-runtime's cached client).
 */
export const cacheKey: ContextKey<(kind: string) => Store | undefined> =
  defineContextKey<(kind: string) => Store | undefined>('reconcilekit.cache');
