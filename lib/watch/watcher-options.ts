import type { KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { ObjectClient } from '../kube/object-client.js';
import type { ResourceRef } from '../kube/resource-ref.js';
import type { Logger } from '../observability/logger.js';
import type { WatcherMetrics } from './metrics.js';
import type { Store } from './store.js';

/**
 * Objects per list page. 500, as client-go and kubectl: bounded memory per response.
 * @category Watch and cache
 */
export const DEFAULT_LIST_PAGE_SIZE = 500;
/**
 * Objects of a list applied to the cache (and their events handed on) per turn of the event loop. 500:
 * about 25–50 ms of work at 50–100 µs an object (store, indexes, the controller's queue), so timers, I/O
 * and other watches run between chunks while a large list is applied.
 * @category Watch and cache
 */
export const DEFAULT_REPLACE_CHUNK_SIZE = 500;
/**
 * First reconnect delay after a watch error. 800 ms, as kube-rs.
 * @category Watch and cache
 */
export const DEFAULT_WATCH_BACKOFF_INITIAL_MS = 800;
/**
 * Reconnect delay growth per consecutive error. ×2.
 * @category Watch and cache
 */
export const DEFAULT_WATCH_BACKOFF_FACTOR = 2;
/**
 * Reconnect delay ceiling. 30 s: an outage is noticed within half a minute of its end.
 * @category Watch and cache
 */
export const DEFAULT_WATCH_BACKOFF_MAX_MS = 30_000;
/**
 * A watch healthy this long resets the backoff. 2 min, as kube-rs.
 * @category Watch and cache
 */
export const DEFAULT_WATCH_BACKOFF_RESET_MS = 120_000;
/**
 * Reconnect delays are spread by ± this fraction, so many watchers do not reconnect in lock-step.
 * @category Watch and cache
 */
export const DEFAULT_WATCH_BACKOFF_JITTER = 0.25;
/**
 * Bounds of the random server-side watch timeout (s). 300–600 s, as client-go's reflector.
 * @category Watch and cache
 */
export const DEFAULT_WATCH_TIMEOUT_RANGE_SECONDS: readonly [number, number] = [300, 600];
/**
 * Extra time before the client gives up on a watch the server should have closed (client-node 1.4 has none).
 * @category Watch and cache
 */
export const DEFAULT_WATCH_CLIENT_GRACE_MS = 30_000;

/**
 * Options of {@link Watcher} and {@link Informer}.
 * @category Watch and cache
 */
export interface WatcherOptions<T extends KubernetesObject = KubernetesObject> {
  /** Client used for list and watch. */
  client: ObjectClient;
  /**
   * What to watch: kind, optional namespace (default all) or `namespaces` (several: one list and watch per
   * namespace, one store), selectors, and `metadataOnly` (the store then holds each object's apiVersion,
   * kind and metadata only: `PartialObjectMetadata`).
   */
  resource: ResourceRef & {
    namespaces?: readonly string[];
    labelSelector?: string;
    fieldSelector?: string;
    metadataOnly?: boolean;
  };
  /** Where errors and reconnects are logged. */
  logger: Logger;
  /** Metric set. Default: `WatcherMetrics.for(registry)` when `registry` is given, else none. */
  metrics?: WatcherMetrics;
  /** Registry for the watcher metrics. Default: none. Never the global registry. */
  registry?: Registry;
  /** `resource` label of the metrics and the logger. Default: `apiVersion/kind`. */
  name?: string;
  /** Objects per list page. Default {@link DEFAULT_LIST_PAGE_SIZE}. */
  pageSize?: number;
  /**
   * Objects of an initial list (or relist) applied to the store per turn of the event loop; the watcher
   * yields between chunks. Default {@link DEFAULT_REPLACE_CHUNK_SIZE}.
   */
  replaceChunkSize?: number;
  /** Cache written by the watcher. Default: a new Store. */
  store?: Store<T>;
  /** Ask for BOOKMARK events (keeps the resume point fresh on quiet resources). Default: true. */
  bookmarks?: boolean;
  /** Server-side watch timeout in s. Default: random in {@link DEFAULT_WATCH_TIMEOUT_RANGE_SECONDS}. */
  timeoutSeconds?: number | (() => number);
  /** Reconnect backoff. Defaults: the DEFAULT_WATCH_BACKOFF_* constants. */
  backoff?: { initialMs?: number; factor?: number; maxMs?: number; resetAfterMs?: number; jitter?: number };
  /** Random source in [0, 1) for jitter and timeouts. Default: Math.random. */
  random?: () => number;
  /**
   * Keep `metadata.managedFields` on the objects the cache holds and hands out. Default false: dropped as
   * each object arrives (controller-runtime's `TransformStripManagedFields`, kube-rs's default) — often the
   * largest part of a small object, and nothing a reconciler reads. Set true when your code reads it
   * from the cache (or read that object live: `client.get(ref, { live: true })`).
   */
  keepManagedFields?: boolean;
  /**
   * Stream the initial list through a watch (watch-list: `sendInitialEvents=true`, ended by the
   * `k8s.io/initial-events-end` bookmark) instead of paged LISTs — the server sends objects from its watch
   * cache one by one rather than building whole list pages, which bounds its memory on large kinds. A
   * server that refuses it (kube-apiserver before 1.27 or with the WatchList gate off: 422) is listed with
   * paged LISTs instead, from then on. Default true; false always lists.
   */
  watchList?: boolean;
}
