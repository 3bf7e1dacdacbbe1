// Peer: what an operator author writes by hand with @kubernetes/client-node 1.4 — makeInformer on the
// Websites and one sequential promise chain as the handler (no coalescing, no cache of ConfigMaps).
/* eslint-disable @typescript-eslint/no-misused-spread --
   client-node's generated models are plain JSON objects on the wire; the bench builds them as literals. */
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  makeInformer,
  setHeaderOptions,
  type KubernetesListObject,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import {
  WEBSITE_GROUP,
  WEBSITE_PLURAL,
  WEBSITE_VERSION,
  configMapName,
  dataMatches,
  desiredConfigMap,
  desiredData,
  statusObserved,
  websitesPath,
  type Website,
} from '../lib/website.js';
import type { BenchOperator, BenchOperatorOptions } from './bench-operator.js';

/** The hand-written client-node informer with a sequential handler. */
export function handWrittenOperator(options: BenchOperatorOptions): BenchOperator {
  const kc = new KubeConfig();
  kc.loadFromFile(options.kubeconfigPath);
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const namespace = options.namespace;
  let calls = 0;
  let errors = 0;
  let chain: Promise<void> = Promise.resolve();

  const reconcile = async (site: Website): Promise<void> => {
    calls += 1;
    const name = configMapName(site.metadata.name ?? '');
    let cm: V1ConfigMap | undefined;
    try {
      cm = await core.readNamespacedConfigMap({ name, namespace });
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
    if (!cm) await core.createNamespacedConfigMap({ namespace, body: desiredConfigMap(site) });
    else if (!dataMatches(cm, site)) {
      await core.replaceNamespacedConfigMap({ name, namespace, body: { ...cm, data: desiredData(site) } });
    }
    if (!statusObserved(site)) {
      await custom.patchNamespacedCustomObjectStatus(
        {
          group: WEBSITE_GROUP,
          version: WEBSITE_VERSION,
          namespace,
          plural: WEBSITE_PLURAL,
          name: site.metadata.name ?? '',
          body: { status: { observedGeneration: site.metadata.generation } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    }
  };
  const handle = (site: Website): void => {
    chain = chain
      .then(() => reconcile(site))
      .catch(() => {
        errors += 1;
      });
  };

  const informer = makeInformer<Website & { metadata: object }>(
    kc,
    websitesPath(namespace),
    async () =>
      (await custom.listNamespacedCustomObject({
        group: WEBSITE_GROUP,
        version: WEBSITE_VERSION,
        namespace,
        plural: WEBSITE_PLURAL,
      })) as KubernetesListObject<Website & { metadata: object }>,
  );
  informer.on('add', handle);
  informer.on('update', handle);
  // client-node's informer stops for good on any error; the documented answer is to restart it.
  informer.on('error', () => {
    setTimeout(() => void informer.start(), 1000);
  });

  return {
    start: () => informer.start(),
    stop: () => informer.stop(),
    calls: () => calls,
    errors: () => Promise.resolve(errors),
  };
}
