// Child process (run with --expose-gc): caches every ConfigMap of a namespace with one informer and reports
// heap and RSS growth. argv: <system> <kubeconfig> <namespace>; system is "reconcilekit" (our
// Informer/Store) or "client-node" (makeInformer's ObjectCache, for comparison).
// Message out: {type:'memory', count, heapBytes, rssBytes, heapAfter, rssAfter, syncMs}.
import { performance } from 'node:perf_hooks';
import { onDriverMessage, reply } from '../lib/child.js';
import { configMapsPath } from '../lib/website.js';

const [system = '', kubeconfigPath = '', namespace = ''] = process.argv.slice(2);
if (system === '' || kubeconfigPath === '' || namespace === '') {
  throw new Error('usage: memory-child <system> <kubeconfig> <namespace>');
}
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('memory-child needs --expose-gc');

function settle(): NodeJS.MemoryUsage {
  for (let i = 0; i < 4; i++) gc!();
  return process.memoryUsage();
}

interface Cache {
  start(): Promise<void>;
  count(): number;
  stop(): Promise<void>;
}

async function reconcilekitCache(): Promise<Cache> {
  const { Informer, ObjectClient, loadKubeConfig, silentLogger } = await import('reconcilekit');
  process.env.KUBECONFIG = kubeconfigPath;
  const client = new ObjectClient({ kubeConfig: loadKubeConfig() });
  const informer = new Informer({
    client,
    resource: { apiVersion: 'v1', kind: 'ConfigMap', namespace },
    logger: silentLogger(),
  });
  return {
    start: async () => {
      informer.start();
      await informer.waitForSync();
    },
    count: () => informer.store.size,
    stop: () => informer.stop(),
  };
}

async function clientNodeCache(): Promise<Cache> {
  const { CoreV1Api, KubeConfig, makeInformer } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const core = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer(kc, configMapsPath(namespace), () =>
    core.listNamespacedConfigMap({ namespace }),
  );
  return {
    start: () => informer.start(),
    count: () => informer.list(namespace).length,
    stop: () => informer.stop(),
  };
}

const cache = system === 'reconcilekit' ? await reconcilekitCache() : await clientNodeCache();
const before = settle();
const started = performance.now();
await cache.start();
const syncMs = performance.now() - started;
const after = settle();
const count = cache.count();
reply({
  type: 'memory',
  count,
  syncMs,
  heapBytes: after.heapUsed - before.heapUsed,
  rssBytes: after.rss - before.rss,
  heapAfter: after.heapUsed,
  rssAfter: after.rss,
});
onDriverMessage(async (message) => {
  if (message.type !== 'stop') return;
  await Promise.race([cache.stop(), new Promise((r) => setTimeout(r, 2_000))]);
  process.exit(0);
});
