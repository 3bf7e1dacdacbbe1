import type { KubernetesObject } from '@kubernetes/client-node';
import type { ResourceRouter } from './router/resource-router.js';
import type { ResourceSet } from './router/resource-set.js';
import type { CoreConfig } from '../engine/core-config.js';
import type { WebhookHostOptions } from '../webhooks/webhook-host.js';

export type {
  CoreConfig,
  FrameworkResource,
  OwnedResource,
  LeaderElectionOptions,
  HealthServerConfig,
} from '../engine/core-config.js';

/**
 * Configuration of a {@link Framework}. Only `name` and a router (or resource sets) are required.
 * @category Engine: Framework and ControllerCore
 */
export interface FrameworkConfig<Obj extends KubernetesObject = KubernetesObject> extends CoreConfig<Obj> {
  /** Picks the resource set per object. Give this or `resourceSets`. */
  resourceRouter?: ResourceRouter<Obj>;
  /** Resource sets; a router is built from them. Give this or `resourceRouter`. */
  resourceSets?: readonly ResourceSet<Obj>[];
  /**
   * Serve admission and conversion webhooks when started alone (docs/webhooks.md): the same options as the
   * `Operator` option `webhooks` — the HTTPS webhook server starts before the controller, its certificates
   * are made (or read) and renewed, its configurations registered, and `/readyz` checks it. In an `Operator`,
   * give them to the Operator instead (it refuses a controller that has its own).
   */
  webhooks?: WebhookHostOptions;
}
