import type { KubernetesObject } from '@kubernetes/client-node';
import { defineContextKey, type ContextKey } from '../context/context-key.js';
import type { ReconcileContext } from '../context/reconcile-context.js';
import { stepGateKey } from '../context/step-gate.js';
import type { ObjectClient } from '../kube/object-client.js';
import type { RecordedEvent } from '../observability/event-recorder.js';
import type { Store } from '../watch/store.js';

/**
 * The framework's API client (shared keep-alive connections), set in every reconciliation's context
 * when the framework has an API connection: `ctx.get(clientKey)`.
 * @category Engine: Framework and ControllerCore
 */
export const clientKey: ContextKey<ObjectClient> = defineContextKey<ObjectClient>('reconcilekit.client');

/**
 * Cached reads of the reconciled kind and of every watched kind (`owns`, `watches`):
 * `ctx.get(cacheKey)?.('ConfigMap')?.byOwnerUid(obj.metadata.uid)`; pass the apiVersion too when two
 * groups have a kind of that name (`('Service', 'v1')`). Reading from this cache instead of the API
 * server is what makes a reconcile cheap (controller-runtime's cached client).
 * @category Engine: Framework and ControllerCore
 */
export const cacheKey: ContextKey<(kind: string, apiVersion?: string) => Store | undefined> =
  defineContextKey<(kind: string, apiVersion?: string) => Store | undefined>('reconcilekit.cache');

/**
 * Posts a Kubernetes Event about the reconciled object (or `obj`), through the engine's recorder.
 * @category Engine: Framework and ControllerCore
 */
export type RecordEvent = (event: RecordedEvent, obj?: KubernetesObject) => void;

/**
 * Events from user code: `ctx.get(eventRecorderKey)?.({ type: 'Normal', reason: 'Provisioned', message })`
 * posts an Event on the object of this pass (or on `obj`), aggregated like the engine's own Warning
 * Events. Set when the controller has an API connection and `events` is not false.
 * @category Engine: Framework and ControllerCore
 */
export const eventRecorderKey: ContextKey<RecordEvent> = defineContextKey<RecordEvent>(
  'reconcilekit.eventRecorder',
);

/**
 * Reads of a watched kind's cache (`cacheKey`'s value).
 * @category Engine: Framework and ControllerCore
 */
export type CacheLookup = (kind: string, apiVersion?: string) => Store | undefined;

/** What the engine puts into a pass's context (each part only when present). */
export interface EngineContextParts {
  /** `clientKey`. */
  client?: ObjectClient | undefined;
  /** `cacheKey`. */
  cache?: CacheLookup | undefined;
  /** `eventRecorderKey`. */
  events?: RecordEvent | undefined;
  /** `stepGateKey`: checked before each step (the Lease's write fence). */
  stepGate?: (() => void) | undefined;
}

/**
 * The one place a pass's context gets the engine's values — used by the running controller's passes and
 * by `plan`'s, so both see the same keys.
 */
export function setEngineContext(ctx: ReconcileContext, parts: EngineContextParts): void {
  if (parts.client !== undefined) ctx.set(clientKey, parts.client);
  if (parts.cache !== undefined) ctx.set(cacheKey, parts.cache);
  if (parts.events !== undefined) ctx.set(eventRecorderKey, parts.events);
  if (parts.stepGate !== undefined) ctx.set(stepGateKey, parts.stepGate);
}
