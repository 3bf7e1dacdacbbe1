// reconcilekit's reconcile-function front end doing the bench's work: a Controller on Websites that owns
// ConfigMaps, with one function — read the Website's ConfigMap from the cache, create or replace it when
// its data differs, merge-patch status.observedGeneration when it lags. Same engine, same client and cache
// as the Framework row (reconcilekit-operator.ts); no finalizer (the peers add none).
// With RECONCILEKIT_BENCH_SHARD=<identity> (workload 17) the same controller runs sharded: the `sharding`
// option (Leases in the run's namespace, this identity), children following their owner's shard. With
// RECONCILEKIT_BENCH_DEFAULT_KUBECONFIG=1 (workload 17, both layouts) it passes no `kubeConfig` and the engine
// finds KUBECONFIG itself, as the README's operator does: `loadKubeConfig()` returns client-node's KubeConfig,
// whose import alone (client-node, undici, ws) adds ~70 MiB of RSS that would sit under every replica alike.
import type { KubernetesObject } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { Controller, cacheKey, clientKey, loadKubeConfig, silentLogger } from 'reconcilekit';
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

/** The reconcilekit Controller of workload 2. */
export function reconcilekitControllerOperator(options: BenchOperatorOptions): BenchOperator {
  process.env.KUBECONFIG = options.kubeconfigPath;
  let calls = 0;
  const registry = new Registry();
  const shard = process.env.RECONCILEKIT_BENCH_SHARD;
  const controller = new Controller<Site>({
    name: 'bench-websites-controller',
    ...(process.env.RECONCILEKIT_BENCH_DEFAULT_KUBECONFIG === '1' ? {} : { kubeConfig: loadKubeConfig() }),
    resource: {
      apiVersion: WEBSITE_API_VERSION,
      kind: WEBSITE_KIND,
      plural: WEBSITE_PLURAL,
      namespace: options.namespace,
    },
    owns: [{ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: options.namespace }],
    workers: options.workers,
    ...(shard === undefined || shard === ''
      ? {}
      : { sharding: { leaseNamespace: options.namespace, identity: shard } }),
    logger: silentLogger(),
    registry,
    events: false,
    reconciler: async (ctx, { object: site, action }) => {
      calls += 1;
      if (action === 'deleted') return;
      const client = ctx.get(clientKey);
      const cache = ctx.get(cacheKey)?.('ConfigMap');
      if (client === undefined || cache === undefined) throw new Error('no client or ConfigMap cache');
      const namespace = site.metadata.namespace ?? '';
      const name = site.metadata.name ?? '';
      const current = cache.get(`${namespace}/${configMapName(name)}`) as SiteConfigMap | undefined;
      if (current === undefined) await client.create(desiredConfigMap(site), { signal: ctx.signal });
      else if (!dataMatches(current, site)) {
        await client.replace({ ...current, data: desiredData(site) }, { signal: ctx.signal });
      }
      const generation = site.metadata.generation;
      if (generation !== undefined && site.status?.observedGeneration !== generation) {
        await client.patch(
          { apiVersion: WEBSITE_API_VERSION, kind: WEBSITE_KIND, plural: WEBSITE_PLURAL, namespace, name },
          { status: { observedGeneration: generation } },
          'merge',
          { subresource: 'status', signal: ctx.signal },
        );
      }
    },
  });
  return {
    start: () => controller.start(),
    stop: () => controller.stop(),
    calls: () => calls,
    errors: async () => {
      const metric = registry.getSingleMetric('controller_runtime_reconcile_errors_total');
      const values = metric === undefined ? [] : (await metric.get()).values;
      return values.reduce((sum, v) => sum + v.value, 0);
    },
  };
}
