import type { Clock } from './clock.js';
import type { Faults } from './faults.js';
import type { JsonObject } from './json.js';
import { metadataOf, objectAt, stringAt } from './json.js';
import type { Registry } from './registry.js';
import type { ObjectStore } from './store.js';
import type { WatchHub } from './watch-hub.js';
import type { WebhookSettings } from './webhooks/admission-dispatcher.js';

/** Optional log sink: the server stays dependency-free and logs only through this. */
export type ApiServerLog = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  fields?: JsonObject,
) => void;

/** Tunables shared by handlers. */
export interface CoreSettings {
  maxBodyBytes: number;
  watchBufferBytes: number;
  bookmarkIntervalMs: number;
  /** kube's WatchList feature gate: `sendInitialEvents` served (true) or refused with 422 (false). */
  watchList: boolean;
  /** Put a `default` ServiceAccount and `kube-root-ca.crt` (this CA PEM) in every namespace; off when undefined. */
  namespaceDefaults?: { caPem: string };
  /** Write Deployments' status as the deployment controller would with no Pods ever ready. */
  deploymentStatus?: boolean;
}

/** Everything a handler or background controller needs; one per server, no globals. */
export interface ApiServerCore {
  registry: Registry;
  store: ObjectStore;
  hub: WatchHub;
  faults: Faults;
  clock: Clock;
  log: ApiServerLog;
  settings: CoreSettings;
  /** Resolves once every write so far is durable (`dataFile`); a write is answered only after it. */
  durable(): Promise<void>;
  /** Asks the background controllers (GC, namespaces, CRD cleanup) to run soon. */
  kick(): void;
  /** Admission and conversion webhooks are called (set by startApiServer; absent in unit tests). */
  webhooks?: WebhookSettings;
}

/** Lifecycle of a namespace as object creation sees it. */
export function namespacePhase(core: ApiServerCore, namespace: string): 'missing' | 'active' | 'terminating' {
  const ns = core.store.get('/namespaces', undefined, namespace);
  if (!ns) return 'missing';
  if (stringAt(metadataOf(ns), 'deletionTimestamp') !== undefined) return 'terminating';
  return stringAt(objectAt(ns, 'status'), 'phase') === 'Terminating' ? 'terminating' : 'active';
}
