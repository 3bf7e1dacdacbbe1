import { isList } from '../../../util/is-list.js';
import type { Logger } from '../../../observability/logger.js';
import {
  backOffAbortable,
  defaultBackOffFactory,
  type BackOffFactory,
  type BackOffOptions,
} from '../../../util/backoff.js';
import { InvalidConfigError } from '../../../errors/invalid-config-error.js';
import type { Resource } from '../resource.js';
import { decorateResource, type OperationDecorator } from './decorate-resource.js';
import type { WrappedResource } from './wrapped-resource.js';

/**
 * Attempts per CRUD step (or per ensure call of a plain resource), the first included.
 * @category CRUD resources
 */
export const DEFAULT_RETRY_ATTEMPTS = 3;

/**
 * The retry wrapper's default backoff: the engine default (500 ms × 1.5, full jitter) limited to 3 attempts.
 * @category CRUD resources
 */
export function defaultRetryBackOffFactory(): BackOffOptions {
  return { ...defaultBackOffFactory(), numOfAttempts: DEFAULT_RETRY_ATTEMPTS };
}

/**
 * Options of {@link wrapWithRetry}.
 * @category CRUD resources
 */
export interface RetryOptions {
  /** Fresh backoff options for every retried call. Default: {@link defaultRetryBackOffFactory} (3 attempts). */
  backOffFactory?: BackOffFactory;
  /** Logger for "retrying due to error" warnings. Default: the call's `ctx.logger` (with `resource`/`function`). */
  logger?: Logger;
}

function retryDecorator(options: RetryOptions): OperationDecorator {
  const factory = options.backOffFactory ?? defaultRetryBackOffFactory;
  return (ctx, resourceName, operation, call) => {
    const backOff = factory();
    const userRetry = backOff.retry;
    const logger = (options.logger ?? ctx.logger).child({
      underlyingResource: resourceName,
      function: operation,
    });
    return backOffAbortable(
      async () => call(),
      {
        ...backOff,
        retry: async (err: unknown, attempt: number) => {
          if (userRetry !== undefined && !(await userRetry(err, attempt))) return false;
          logger.warn('retrying due to error', { err, attempt });
          return true;
        },
      },
      ctx.signal,
    );
  };
}

/**
 * One resource wrapped with retries (see {@link wrapWithRetry}).
 * @category CRUD resources
 */
export function retryResource<Obj>(
  resource: Resource<Obj>,
  options: RetryOptions = {},
): WrappedResource<Obj> {
  return decorateResource(resource, retryDecorator(options));
}

/**
 * Wraps every resource with retries. A CRUD resource retries each failing step on its own (a step that
 * fails twice then succeeds runs three times, then the flow goes on with the next step); a plain resource
 * retries ensureCreated/ensureDeleted whole. Retries stop when `ctx.signal` aborts. The given resources are
 * not modified; the returned list is new.
 * @category CRUD resources
 */
export function wrapWithRetry<Obj>(
  resources: readonly Resource<Obj>[],
  options: RetryOptions = {},
): Resource<Obj>[] {
  if (!isList(resources)) throw new InvalidConfigError('resources must be an array of Resource');
  if (options.backOffFactory !== undefined && typeof options.backOffFactory !== 'function') {
    throw new InvalidConfigError('options.backOffFactory must be a function returning backoff options');
  }
  return resources.map((resource) => retryResource(resource, options));
}
