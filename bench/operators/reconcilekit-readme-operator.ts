// reconcilekit as its README and getting-started page teach it: a Framework on Websites with two CRUD
// resources — "configmap" reads the Website's ConfigMap through the framework's client
// (`ctx.get(clientKey)!.get(...)`, NotFound → undefined), creates it or replaces its data; "status" reads
// status.observedGeneration from the Website and merge-patches it (the example operator's status resource).
// No `owns`, no `kubeConfig` (KUBECONFIG is found as kubectl finds it), the default logger (JSON lines: the
// driver sends stdout to a file), the default registry. Only `workers` and `finalizer: false` are set: the
// work of every system is "a ConfigMap and the status", and a finalizer would add a write per object that
// controller-runtime's peer does not make.
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  CRUDResource,
  Framework,
  Patch,
  ResourceSet,
  clientKey,
  isNotFound,
  type CRUDResourceOps,
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

/** The Framework puts its API client in every reconciliation's context. */
const client = (ctx: ReconcileContext) => ctx.get(clientKey)!;

/** The ConfigMap of a Website: `<name>-site` in its namespace. */
function ref(site: Site) {
  const { name = '', namespace = 'default' } = site.metadata;
  return { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace, name: configMapName(name) };
}

/** Counts what the driver asks for: reconciles (first CRUD step calls), failed I/O steps, the first call. */
export const readmeCounters = { calls: 0, errors: 0, firstCallAtMs: 0 };

async function counted<T>(step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (e) {
    readmeCounters.errors += 1;
    throw e;
  }
}

const websiteConfigMap: CRUDResourceOps<Site, SiteConfigMap | undefined, SiteConfigMap> = {
  name: 'configmap',
  async getCurrentState(ctx, site) {
    readmeCounters.calls += 1;
    if (readmeCounters.calls === 1) readmeCounters.firstCallAtMs = performance.timeOrigin + performance.now();
    try {
      return await client(ctx).get<SiteConfigMap>(ref(site), { signal: ctx.signal });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      readmeCounters.errors += 1;
      throw e;
    }
  },
  getDesiredState(_ctx, site) {
    return desiredConfigMap(site);
  },
  newUpdatePatch(_ctx, site, current, desired) {
    if (desired === undefined) return undefined;
    if (current === undefined) return new Patch<SiteConfigMap>().setCreateChange(desired);
    if (dataMatches(current, site)) return undefined; // nothing to do
    return new Patch<SiteConfigMap>().setUpdateChange({ ...current, data: desiredData(site) });
  },
  newDeletePatch(_ctx, _site, current) {
    return current === undefined ? undefined : new Patch<SiteConfigMap>().setDeleteChange(current);
  },
  async applyCreateChange(ctx, _site, configMap) {
    await counted(client(ctx).create(configMap, { signal: ctx.signal }));
  },
  async applyDeleteChange(ctx, site) {
    try {
      await client(ctx).delete(ref(site), { signal: ctx.signal });
    } catch (e) {
      if (!isNotFound(e)) throw e; // already gone is what we wanted
    }
  },
  async applyUpdateChange(ctx, _site, configMap) {
    await counted(client(ctx).replace(configMap, { signal: ctx.signal }));
  },
};

const websiteStatus: CRUDResourceOps<Site, number | undefined, number> = {
  name: 'status',
  getCurrentState: (_ctx, site) => site.status?.observedGeneration,
  getDesiredState: (_ctx, site) => site.metadata.generation,
  newUpdatePatch: (_ctx, _site, current, desired) =>
    desired === undefined || current === desired ? undefined : new Patch<number>().setUpdateChange(desired),
  newDeletePatch: () => undefined,
  applyCreateChange: () => undefined,
  applyDeleteChange: () => undefined,
  async applyUpdateChange(ctx, site, generation) {
    const { name = '', namespace } = site.metadata;
    const website = {
      apiVersion: WEBSITE_API_VERSION,
      kind: WEBSITE_KIND,
      plural: WEBSITE_PLURAL,
      namespace,
      name,
    };
    await counted(
      client(ctx).patch(website, { status: { observedGeneration: generation } }, 'merge', {
        subresource: 'status',
        signal: ctx.signal,
      }),
    );
  },
};

/** The README-idiom reconcilekit operator of workload 9. */
export function reconcilekitReadmeOperator(options: BenchOperatorOptions): BenchOperator {
  const framework = new Framework<Site>({
    name: 'website-operator',
    resource: {
      apiVersion: WEBSITE_API_VERSION,
      kind: WEBSITE_KIND,
      plural: WEBSITE_PLURAL,
      namespace: options.namespace,
    },
    resourceSets: [
      new ResourceSet<Site>({
        resources: [new CRUDResource({ ops: websiteConfigMap }), new CRUDResource({ ops: websiteStatus })],
      }),
    ],
    workers: options.workers,
    finalizer: false,
  });
  return {
    start: () => framework.start(),
    stop: () => framework.stop(),
    calls: () => readmeCounters.calls,
    errors: () => Promise.resolve(readmeCounters.errors),
    firstCallAtMs: () => readmeCounters.firstCallAtMs,
  };
}
