/**
 * A value or a promise of it: user callbacks (CRUD steps, reconcile functions, hooks) may be sync or async.
 * @category Utilities
 */
export type Awaitable<T> = T | Promise<T>;
