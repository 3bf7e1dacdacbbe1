// The Website operator: configuration, resource sets, Framework, start(). Run it with
//   node dist/examples/website-operator/main.js [--allow-deployment-updates] [--output-dir DIR] …
// against the cluster of KUBECONFIG (or in-cluster). See operator-options.ts for every option.
// It exports the Framework and starts it only as the main module, so
//   reconcilekit plan dist/examples/website-operator/main.js
// shows what it would change first (docs/plan.md; flags come from the environment then).
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { createLogger, Framework, handleSignals, loadKubeConfig, type RbacDeclaration } from 'reconcilekit';
import { parseOperatorOptions, OPERATOR_NAME } from './operator-options.js';
import { createWebsiteResourceSets } from './resource-sets.js';
import { loadWebsiteCrd } from './website-crd.js';
import { WEBSITE_API_VERSION, WEBSITE_KIND, WEBSITE_PLURAL, type Website } from './website.js';

// The kind, exported for `reconcilekit generate` (deploy/crd.yaml).
export { WebsiteKind } from './website-kind.js';

const entry = process.argv[1];
const isMain = entry !== undefined && import.meta.url === pathToFileURL(realpathSync(entry)).href;
// Imported (by reconcilekit plan), the process's arguments are not ours: environment and defaults only.
const options = parseOperatorOptions(isMain ? process.argv.slice(2) : []);
const logger = createLogger({ defaultMeta: { operator: OPERATOR_NAME } });
const namespace = options.namespace === undefined ? {} : { namespace: options.namespace };
const registry = new Registry(); // engine and resource metrics, served on /metrics

export const framework = new Framework<Website>({
  name: OPERATOR_NAME,
  kubeConfig: loadKubeConfig(),
  resource: { apiVersion: WEBSITE_API_VERSION, kind: WEBSITE_KIND, plural: WEBSITE_PLURAL, ...namespace },
  // The children: their changes (someone deletes the ConfigMap) wake the owning Website up.
  owns: [
    { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' },
    { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' },
    { apiVersion: 'v1', kind: 'Service', plural: 'services' },
  ],
  resourceSets: createWebsiteResourceSets({
    outputDir: options.outputDir,
    allowDeploymentUpdates: options.allowDeploymentUpdates,
    registry,
    logger,
  }),
  ...(options.installCrd ? { crd: loadWebsiteCrd() } : {}),
  workers: options.workers,
  logger,
  registry,
  leaderElection:
    options.leaderElectionNamespace === undefined
      ? false
      : {
          leaseName: OPERATOR_NAME,
          namespace: options.leaderElectionNamespace,
          ...(options.identity ? { identity: options.identity } : {}),
        },
  healthServer: options.health ?? false,
});

/**
 * The requests of the resource sets' own code, for `reconcilekit generate rbac` (the engine's — the Website
 * watch, finalizer, error condition, Events, Lease and the children's watches — come from the Framework's
 * configuration): each CRUD resource creates its child, replaces it on update and deletes it on cleanup (it
 * reads the child from the informer cache of `owns`: list+watch, no get); the status resource
 * merge-patches the Website's status.
 */
export const rbac: RbacDeclaration = {
  uses: [
    ...framework.config.owns.map((child) => ({
      apiVersion: child.apiVersion,
      plural: child.plural ?? '',
      verbs: ['create', 'update', 'delete'] as const,
      reason: `the ${child.kind} resource: created, replaced on update, deleted on cleanup`,
    })),
    {
      apiVersion: WEBSITE_API_VERSION,
      plural: WEBSITE_PLURAL,
      subresource: 'status',
      verbs: ['patch'],
      reason: 'the status resource: merge patch of the status',
    },
  ],
};

if (isMain) {
  // SIGTERM/SIGINT: stop taking work, let in-flight reconciles finish, release the Lease, exit 0.
  // A second signal exits at once.
  handleSignals(framework, { logger });
  await framework.start();
  logger.info('website operator running', { outputDir: options.outputDir, ...namespace });
}
