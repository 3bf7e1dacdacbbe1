import type { Registry } from 'prom-client';
import {
  CRUDResource,
  ResourceSet,
  updateAllowed,
  wrapWithMetrics,
  wrapWithRetry,
  type Logger,
  type Resource,
} from 'reconcilekit';
import type { WebsiteClient } from './kube-client.js';
import { renderPageV1, renderPageV2, type PageRenderer } from './render-page.js';
import { ConfigMapOps } from './resources/configmap.js';
import { DeploymentOps } from './resources/deployment.js';
import { PageFileOps } from './resources/page-file.js';
import { ServiceOps } from './resources/service.js';
import { StatusOps } from './resources/status.js';
import { websiteVersion, type Website } from './website.js';

/** Options of {@link createWebsiteResourceSets}. */
export interface WebsiteResourceSetsOptions {
  /** Client the resources read and write Kubernetes objects with. Default: the Framework's (`clientKey`). */
  client?: WebsiteClient;
  /** Directory the page-file resource publishes pages under. Required. */
  outputDir: string;
  /**
   * Lets version 2 update existing Deployments (its initCtx sets `updateAllowed`). Default: false, so
   * version 2 creates and deletes but holds back Deployment updates and reports them in the status —
   * how an operator keeps disruptive changes behind a switch.
   */
  allowDeploymentUpdates?: boolean;
  /** Registry for the resource metrics wrapper. Default: a private registry (metrics not exported). */
  registry?: Registry;
  /** Logger of the resource sets. Default: silent. */
  logger?: Logger;
  /** Clock of the status resource. Default: the system clock. */
  now?: () => Date;
}

/** The versions this operator serves, oldest first; the label `demo.reconcilekit.io/version` picks one per Website. */
export const WEBSITE_VERSIONS = ['1', '2'] as const;

function resourcesFor(
  options: WebsiteResourceSetsOptions,
  render: PageRenderer,
  gateUpdates: boolean,
): Resource<Website>[] {
  const { client, outputDir } = options;
  const resources: Resource<Website>[] = [
    new CRUDResource({ ops: new ConfigMapOps({ client, render }) }),
    new CRUDResource({ ops: new DeploymentOps({ client, render, gateUpdates }) }),
    new CRUDResource({ ops: new ServiceOps({ client }) }),
    new CRUDResource({ ops: new PageFileOps({ outputDir, render }) }),
    new CRUDResource({
      ops: new StatusOps(options.now === undefined ? { client } : { client, now: options.now }),
    }),
  ];
  // operatorkit's wiring: retry each failing step, then measure (one observation per step, retries included).
  const metricsOptions = options.registry === undefined ? {} : { registry: options.registry };
  return wrapWithMetrics(wrapWithRetry(resources), metricsOptions);
}

/**
 * The two versioned resource sets of the Website operator, chosen by the label
 * `demo.reconcilekit.io/version` (no label: version 1). Exactly one set handles each Website.
 *
 * - Version 1 renders a plain page and applies every change.
 * - Version 2 renders a laid-out page and applies Deployment updates only when `updateAllowed` is set,
 *   which its initCtx does when the operator runs with `allowDeploymentUpdates`.
 */
export function createWebsiteResourceSets(options: WebsiteResourceSetsOptions): ResourceSet<Website>[] {
  const logger = options.logger;
  const v1 = new ResourceSet<Website>({
    resources: resourcesFor(options, renderPageV1, false),
    handles: (site) => websiteVersion(site) === '1',
    ...(logger === undefined ? {} : { logger }),
  });
  const v2 = new ResourceSet<Website>({
    resources: resourcesFor(options, renderPageV2, true),
    handles: (site) => websiteVersion(site) === '2',
    initCtx: (ctx) => {
      if (options.allowDeploymentUpdates === true) updateAllowed.set(ctx);
    },
    ...(logger === undefined ? {} : { logger }),
  });
  return [v1, v2];
}
