// reconcilekit doing the bench's work: a Framework on Websites that owns ConfigMaps (so reading a Website's
// ConfigMap hits the framework's cache, not the API server) with two CRUD resources — "configmap" (create or
// update the owned ConfigMap) and "status" (merge-patch status.observedGeneration). Writes go through the
// framework's client (ctx.get(clientKey): shared keep-alive connections). No finalizer: the peers add none.
import type { KubernetesObject } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import {
  CRUDResource,
  Framework,
  Patch,
  ResourceSet,
  cacheKey,
  clientKey,
  loadKubeConfig,
  silentLogger,
  type CRUDResourceOps,
  type ObjectClient,
  type ReconcileContext,
} from 'reconcilekit';
import {
  WEBSITE_API_VERSION,
  WEBSITE_KIND,
  WEBSITE_PLURAL,
  configMapName,
  dataMatches,
  desiredConfigMap,
  desiredData,
  type SiteConfigMap,
  type Website,
} from '../lib/website.js';
import type { BenchOperator, BenchOperatorOptions } from './bench-operator.js';

type Site = Website & KubernetesObject;

function client(ctx: ReconcileContext): ObjectClient {
  const found = ctx.get(clientKey);
  if (found === undefined) throw new Error('the framework put no client in the context');
  return found;
}

const configMapOps: CRUDResourceOps<Site, SiteConfigMap | undefined, SiteConfigMap> = {
  name: 'configmap',
  getCurrentState: (ctx, site) => {
    const cache = ctx.get(cacheKey)?.('ConfigMap');
    if (cache === undefined) throw new Error('the framework has no ConfigMap cache (config.owns)');
    return cache.get(`${site.metadata.namespace ?? ''}/${configMapName(site.metadata.name ?? '')}`) as
      SiteConfigMap | undefined;
  },
  getDesiredState: (_ctx, site) => desiredConfigMap(site),
  newUpdatePatch: (_ctx, site, current, desired) => {
    if (desired === undefined) return undefined;
    if (current === undefined) return new Patch<SiteConfigMap>().setCreateChange(desired);
    if (!dataMatches(current, site)) {
      return new Patch<SiteConfigMap>().setUpdateChange({ ...current, data: desiredData(site) });
    }
    return undefined;
  },
  newDeletePatch: () => undefined,
  applyCreateChange: async (ctx, _site, cm) => {
    await client(ctx).create(cm, { signal: ctx.signal });
  },
  applyDeleteChange: () => undefined,
  applyUpdateChange: async (ctx, _site, cm) => {
    await client(ctx).replace(cm, { signal: ctx.signal });
  },
};

const statusOps: CRUDResourceOps<Site, number | undefined, number> = {
  name: 'status',
  getCurrentState: (_ctx, site) => site.status?.observedGeneration,
  getDesiredState: (_ctx, site) => site.metadata.generation,
  newUpdatePatch: (_ctx, _site, current, desired) =>
    desired === undefined || current === desired ? undefined : new Patch<number>().setUpdateChange(desired),
  newDeletePatch: () => undefined,
  applyCreateChange: () => undefined,
  applyDeleteChange: () => undefined,
  applyUpdateChange: async (ctx, site, generation) => {
    await client(ctx).patch(
      {
        apiVersion: WEBSITE_API_VERSION,
        kind: WEBSITE_KIND,
        plural: WEBSITE_PLURAL,
        namespace: site.metadata.namespace,
        name: site.metadata.name ?? '',
      },
      { status: { observedGeneration: generation } },
      'merge',
      { subresource: 'status', signal: ctx.signal },
    );
  },
};

/** The reconcilekit operator of workloads 2 and 3. */
export function reconcilekitOperator(options: BenchOperatorOptions): BenchOperator {
  process.env.KUBECONFIG = options.kubeconfigPath;
  let calls = 0;
  const registry = new Registry();
  const counted: CRUDResourceOps<Site, SiteConfigMap | undefined, SiteConfigMap> = {
    ...configMapOps,
    getCurrentState: (ctx, site) => {
      calls += 1;
      return configMapOps.getCurrentState(ctx, site);
    },
  };
  const framework = new Framework<Site>({
    name: 'bench-websites',
    kubeConfig: loadKubeConfig(),
    resource: {
      apiVersion: WEBSITE_API_VERSION,
      kind: WEBSITE_KIND,
      plural: WEBSITE_PLURAL,
      namespace: options.namespace,
    },
    owns: [{ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: options.namespace }],
    resourceSets: [
      new ResourceSet<Site>({
        resources: [new CRUDResource({ ops: counted }), new CRUDResource({ ops: statusOps })],
      }),
    ],
    workers: options.workers,
    finalizer: false,
    logger: silentLogger(),
    registry,
    events: false,
  });
  return {
    start: () => framework.start(),
    stop: () => framework.stop(),
    calls: () => calls,
    errors: async () => {
      const metric = registry.getSingleMetric('controller_runtime_reconcile_errors_total');
      const values = metric === undefined ? [] : (await metric.get()).values;
      return values.reduce((sum, v) => sum + v.value, 0);
    },
  };
}
