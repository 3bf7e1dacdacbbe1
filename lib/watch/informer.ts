import type { KubernetesObject } from '@kubernetes/client-node';
import type { Store } from './store.js';
import { Watcher } from './watcher.js';
import type { WatcherOptions } from './watcher-options.js';

/**
 * How long `waitForSync` waits by default. 2 min, as controller-runtime's CacheSyncTimeout.
 * @category Watch and cache
 */
export const DEFAULT_CACHE_SYNC_TIMEOUT_MS = 120_000;

/**
 * Thrown by `waitForSync` when the first list is not in within the timeout.
 * @category Watch and cache
 */
export class CacheSyncTimeoutError extends Error {
  override readonly name = 'CacheSyncTimeoutError';
  /** The last list/watch failure explained (kind, namespace, status code, what to fix), when one failed. */
  readonly problem: string | undefined;
  /**
   * @param problem the last failure explained for a person (the watcher's `lastSyncProblem`): said instead
   *   of the generic hint, so the error names the fix (the RBAC rule to grant, the CRD to install, …).
   */
  constructor(resource: string, timeoutMs: number, cause?: Error, problem?: string) {
    super(
      `cache of ${resource} not synced within ${timeoutMs} ms: ` +
        (problem !== undefined
          ? problem
          : cause !== undefined
            ? `last error: ${cause.message} (check that the API server is reachable, the CRD exists and RBAC allows list/watch)`
            : 'the first list did not complete and no request failed (a large or slow list: raise cacheSyncTimeoutMs, or list fewer objects with a namespace or label selector)'),
      cause ? { cause } : undefined,
    );
    this.problem = problem;
  }
}

/**
 * True for a {@link CacheSyncTimeoutError}.
 * @category Watch and cache
 */
export function isCacheSyncTimeout(e: unknown): e is CacheSyncTimeoutError {
  return e instanceof CacheSyncTimeoutError;
}

type Handlers<T> = {
  add: ((obj: T) => void)[];
  update: ((oldObj: T, newObj: T) => void)[];
  delete: ((obj: T) => void)[];
};

/**
 * A {@link Watcher} and its {@link Store}, with informer-style callbacks: `add(obj)`,
 * `update(oldObj, newObj)` and `delete(obj)` (the last known state), plus `waitForSync`.
 * @category Watch and cache
 */
export class Informer<T extends KubernetesObject = KubernetesObject> {
  readonly watcher: Watcher<T>;
  private readonly handlers: Handlers<T> = { add: [], update: [], delete: [] };
  private readonly resource: string;

  constructor(options: WatcherOptions<T>) {
    this.watcher = new Watcher<T>(options);
    this.resource = options.name ?? `${options.resource.apiVersion}/${options.resource.kind}`;
    this.watcher.onEvent((e) => {
      if (e.type === 'ADDED') for (const h of this.handlers.add) h(e.object);
      else if (e.type === 'MODIFIED') for (const h of this.handlers.update) h(e.old ?? e.object, e.object);
      else for (const h of this.handlers.delete) h(e.object);
    });
  }

  /** What this informer lists and watches: kind, namespace (undefined: all) and selectors. */
  get source(): WatcherOptions<T>['resource'] {
    return this.watcher.resource;
  }

  /** The cache: latest object per key. */
  get store(): Store<T> {
    return this.watcher.store;
  }

  /** True once the first list is in. */
  get synced(): boolean {
    return this.watcher.synced;
  }

  on(event: 'add' | 'delete', handler: (obj: T) => void): void;
  on(event: 'update', handler: (oldObj: T, newObj: T) => void): void;
  on(event: keyof Handlers<T>, handler: ((obj: T) => void) | ((oldObj: T, newObj: T) => void)): void {
    if (event === 'update') this.handlers.update.push(handler);
    else this.handlers[event].push(handler as (obj: T) => void);
  }

  /** Removes a handler added with `on` (a shared informer outlives each of its users). */
  off(event: 'add' | 'delete', handler: (obj: T) => void): void;
  off(event: 'update', handler: (oldObj: T, newObj: T) => void): void;
  off(event: keyof Handlers<T>, handler: ((obj: T) => void) | ((oldObj: T, newObj: T) => void)): void {
    // Copy on write: a dispatch in progress keeps iterating the list it started with.
    if (event === 'update') this.handlers.update = this.handlers.update.filter((h) => h !== handler);
    else this.handlers[event] = this.handlers[event].filter((h) => h !== handler);
  }

  start(): void {
    this.watcher.start();
  }

  stop(): Promise<void> {
    return this.watcher.stop();
  }

  /**
   * Resolves once the first list is in. Rejects with {@link CacheSyncTimeoutError} after `timeoutMs`
   * (default {@link DEFAULT_CACHE_SYNC_TIMEOUT_MS}) and with the signal's reason when `signal` aborts.
   */
  waitForSync(signal?: AbortSignal, timeoutMs = DEFAULT_CACHE_SYNC_TIMEOUT_MS): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const onAbort = (): void => {
        settle(() => {
          reject(signal?.reason instanceof Error ? signal.reason : new Error('waitForSync aborted'));
        });
      };
      const timer = setTimeout(() => {
        settle(() => {
          reject(
            new CacheSyncTimeoutError(
              this.resource,
              timeoutMs,
              this.watcher.lastSyncError,
              this.watcher.lastSyncProblem,
            ),
          );
        });
      }, timeoutMs);
      if (signal?.aborted === true) onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.watcher.onSynced(() => {
        settle(resolve);
      });
    });
  }
}
