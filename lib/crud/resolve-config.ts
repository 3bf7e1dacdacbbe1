import type { KubernetesObject } from '@kubernetes/client-node';
import { ResourceRouter } from './router/resource-router.js';
import { finalizerName } from '../engine/finalizer-patch.js';
import type { FrameworkConfig } from './framework-config.js';
import { fail, isObject, resolveCoreConfig, type ResolvedCoreConfig } from '../engine/resolve-core-config.js';

/**
 * A {@link FrameworkConfig} with every default applied and every field checked.
 * @category Engine: Framework and ControllerCore
 */
export interface ResolvedFrameworkConfig<
  Obj extends KubernetesObject = KubernetesObject,
> extends ResolvedCoreConfig<Obj> {
  router: ResourceRouter<Obj>;
}

/**
 * Checks `config` and applies every default (see `defaults.ts`). Throws `InvalidConfigError`
 * naming the field and what to change.
 * @category Engine: Framework and ControllerCore
 */
export function resolveFrameworkConfig<Obj extends KubernetesObject>(
  config: FrameworkConfig<Obj>,
): ResolvedFrameworkConfig<Obj> {
  const core = resolveCoreConfig<Obj>(config, {
    usage: 'new Framework({ name, resourceSets, ... })',
    defaultFinalizer: finalizerName,
  });
  const c = config;
  if (c.resourceRouter !== undefined && c.resourceSets !== undefined) {
    fail('config.resourceRouter and config.resourceSets are exclusive: give one of them');
  }
  let router: ResourceRouter<Obj>;
  if (c.resourceRouter !== undefined) {
    if (!isObject(c.resourceRouter) || typeof c.resourceRouter.resourceSet !== 'function') {
      fail('config.resourceRouter must be a ResourceRouter (new ResourceRouter({ resourceSets }))');
    }
    router = c.resourceRouter;
  } else if (c.resourceSets !== undefined) {
    if (!Array.isArray(c.resourceSets) || c.resourceSets.length === 0) {
      fail('config.resourceSets must not be empty: give at least one ResourceSet');
    }
    router = new ResourceRouter<Obj>({ resourceSets: c.resourceSets });
  } else {
    fail('config.resourceRouter or config.resourceSets must be given: the framework needs resources to run');
  }
  return { ...core, router };
}
