import type { KubernetesObject } from '@kubernetes/client-node';
import { finalizerName } from '../engine/finalizer-patch.js';
import {
  fail,
  isObject,
  resolveCoreConfig,
  resourceRef,
  type ResolvedCoreConfig,
} from '../engine/resolve-core-config.js';
import type { ControllerConfig } from './controller-config.js';
import type { Reconciler } from './reconcile-types.js';

/**
 * A {@link ControllerConfig} with every default applied and every field checked.
 * @category Controllers (reconcile functions)
 */
export interface ResolvedControllerConfig<
  Obj extends KubernetesObject = KubernetesObject,
> extends ResolvedCoreConfig<Obj> {
  resource: NonNullable<ResolvedCoreConfig['resource']>;
  reconciler: Reconciler<Obj>;
}

const USAGE = 'new Controller({ name, resource: { apiVersion, kind }, reconciler: async (ctx, req) => {} })';

function reconcilerOf<Obj extends KubernetesObject>(value: unknown): Reconciler<Obj> {
  if (typeof value === 'function') return { reconcile: value as Reconciler<Obj>['reconcile'] };
  if (!isObject(value) || typeof value.reconcile !== 'function') {
    fail(
      'config.reconciler must be a function (ctx, req) => result, or an object { reconcile(ctx, req), cleanup?(ctx, req) }',
    );
  }
  if (value.cleanup !== undefined && typeof value.cleanup !== 'function') {
    fail('config.reconciler.cleanup must be a function (ctx, req) => result, or left out');
  }
  return value as unknown as Reconciler<Obj>;
}

/**
 * Checks `config` and applies every default. Throws `InvalidConfigError` naming the field and what to
 * change.
 * @category Controllers (reconcile functions)
 */
export function resolveControllerConfig<Obj extends KubernetesObject>(
  config: ControllerConfig<Obj>,
): ResolvedControllerConfig<Obj> {
  if (!isObject(config)) fail(`config must be an object: ${USAGE}`);
  if ((config as { resource?: unknown }).resource === undefined) {
    fail(
      "config.resource is required: the kind to reconcile, e.g. { apiVersion: 'example.com/v1', kind: 'Widget' }",
    );
  }
  if ((config as { reconciler?: unknown }).reconciler === undefined) {
    fail('config.reconciler is required: a function (ctx, req) => result, or { reconcile, cleanup? }');
  }
  const reconciler = reconcilerOf<Obj>(config.reconciler);
  const core = resolveCoreConfig<Obj>(config, {
    usage: USAGE,
    defaultFinalizer: (name) => (reconciler.cleanup === undefined ? false : finalizerName(name)),
  });
  const resource = resourceRef(config.resource, 'config.resource');
  return { ...core, resource, reconciler };
}
