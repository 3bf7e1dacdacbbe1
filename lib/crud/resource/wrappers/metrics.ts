import { isList } from '../../../util/is-list.js';
import type { Counter, Histogram, Registry } from 'prom-client';
import { promClient } from '../../../util/prom-client.js';
import { InvalidConfigError } from '../../../errors/invalid-config-error.js';
import type { Resource } from '../resource.js';
import { decorateResource, type OperationDecorator } from './decorate-resource.js';
import type { WrappedResource } from './wrapped-resource.js';

/**
 * Counter of wrapped calls, by `resource` and `operation`.
 * @category CRUD resources
 */
export const RESOURCE_OPERATION_TOTAL = 'reconcilekit_resource_operation_total';
/**
 * Histogram of wrapped call durations in seconds, by `resource` and `operation`.
 * @category CRUD resources
 */
export const RESOURCE_OPERATION_DURATION_SECONDS = 'reconcilekit_resource_operation_duration_seconds';
/**
 * Histogram buckets (seconds): 1 ms to 60 s, since steps range from cache reads to cloud API calls.
 * @category CRUD resources
 */
export const DEFAULT_OPERATION_DURATION_BUCKETS: readonly number[] = Object.freeze([
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
]);

/**
 * Options of {@link wrapWithMetrics}.
 * @category CRUD resources
 */
export interface MetricsOptions {
  /** Registry the two metrics live in (reused when already registered there). Default: a new private Registry; the global one is never used. */
  registry?: Registry;
  /** Duration histogram buckets in seconds. Default: {@link DEFAULT_OPERATION_DURATION_BUCKETS}. Ignored when the registry already holds the histogram. */
  buckets?: readonly number[];
}

const LABELS = ['resource', 'operation'] as const;

function counterIn(registry: Registry): Counter<(typeof LABELS)[number]> {
  const existing = registry.getSingleMetric(RESOURCE_OPERATION_TOTAL);
  if (existing instanceof promClient().Counter) return existing;
  if (existing !== undefined) {
    throw new InvalidConfigError(
      `registry already holds ${RESOURCE_OPERATION_TOTAL}, and it is not a Counter`,
    );
  }
  return new (promClient().Counter)({
    name: RESOURCE_OPERATION_TOTAL,
    help: 'Calls of resource operations (CRUD steps or ensure calls), failed ones included.',
    labelNames: LABELS,
    registers: [registry],
  });
}

function histogramIn(registry: Registry, buckets: readonly number[]): Histogram<(typeof LABELS)[number]> {
  const existing = registry.getSingleMetric(RESOURCE_OPERATION_DURATION_SECONDS);
  if (existing instanceof promClient().Histogram) return existing;
  if (existing !== undefined) {
    throw new InvalidConfigError(
      `registry already holds ${RESOURCE_OPERATION_DURATION_SECONDS}, and it is not a Histogram`,
    );
  }
  return new (promClient().Histogram)({
    name: RESOURCE_OPERATION_DURATION_SECONDS,
    help: 'Duration of resource operations (CRUD steps or ensure calls) in seconds, retries included when wrapped after retry.',
    labelNames: LABELS,
    buckets: [...buckets],
    registers: [registry],
  });
}

/**
 * One resource wrapped with metrics (see {@link wrapWithMetrics}).
 * @category CRUD resources
 */
export function metricsResource<Obj>(
  resource: Resource<Obj>,
  options: MetricsOptions = {},
): WrappedResource<Obj> {
  return wrapWithMetrics([resource], options)[0] as WrappedResource<Obj>;
}

/**
 * Wraps every resource so each call is counted in `reconcilekit_resource_operation_total` and timed in
 * `reconcilekit_resource_operation_duration_seconds` (labels `resource`, `operation`). CRUD resources are
 * measured per step (GetCurrentState … ApplyUpdateChange), plain ones per call (EnsureCreated,
 * EnsureDeleted). Wrap after `wrapWithRetry` to get one observation per step, retries included. Failed
 * calls are counted and timed too. The given resources are not modified; the returned list is new.
 * @category CRUD resources
 */
export function wrapWithMetrics<Obj>(
  resources: readonly Resource<Obj>[],
  options: MetricsOptions = {},
): Resource<Obj>[] {
  if (!isList(resources)) throw new InvalidConfigError('resources must be an array of Resource');
  if (options.registry !== undefined && !(options.registry instanceof promClient().Registry)) {
    throw new InvalidConfigError('options.registry must be a prom-client Registry');
  }
  const registry = options.registry ?? new (promClient().Registry)();
  const counter = counterIn(registry);
  const histogram = histogramIn(registry, options.buckets ?? DEFAULT_OPERATION_DURATION_BUCKETS);
  const around: OperationDecorator = async (_ctx, resourceName, operation, call) => {
    const labels = { resource: resourceName, operation };
    counter.inc(labels);
    const end = histogram.startTimer(labels);
    try {
      return await call();
    } finally {
      end();
    }
  };
  return resources.map((resource) => decorateResource(resource, around));
}
