// Child process: runs one operator under test.
// argv: <system> <kubeconfig> <namespace> <workers>
// Messages out: {type:'loaded', atMs, rssKiB, spawnedAtMs?} once the modules are imported (Unix ms; spawnedAtMs when the
// system runs in a process of its own); {type:'start', atMs} once start() resolved; {type:'count', calls, errors,
// cpuMs, maxRssKiB, rssKiB, memory
// (process.memoryUsage()), firstCallAtMs, loadedAtMs} when asked (cpuMs: user + system CPU of the operator's
// process so far). In: 'start', 'count', 'stop'. With RECONCILEKIT_BENCH_AUTOSTART=1 the operator starts as
// soon as it is loaded (the clock from process spawn), and 'start' only answers once it has.
import { cpuMs, onDriverMessage, reply } from '../lib/child.js';
import type { BenchOperator, BenchOperatorOptions, SystemName } from './bench-operator.js';

async function load(system: SystemName, options: BenchOperatorOptions): Promise<BenchOperator> {
  switch (system) {
    case 'reconcilekit':
      return (await import('./reconcilekit-operator.js')).reconcilekitOperator(options);
    case 'reconcilekit-readme':
      return (await import('./reconcilekit-readme-operator.js')).reconcilekitReadmeOperator(options);
    case 'reconcilekit-controller':
      return (await import('./reconcilekit-controller-operator.js')).reconcilekitControllerOperator(options);
    case 'dot-i':
      return (await import('./dot-i-operator.js')).dotIOperator(options);
    case 'hand-written':
      return (await import('./hand-written-operator.js')).handWrittenOperator(options);
    case 'controller-runtime':
    case 'controller-runtime-docs':
      return (await import('./controller-runtime-operator.js')).controllerRuntimeOperator(
        options,
        system === 'controller-runtime-docs' ? 'docs' : 'tuned',
      );
    case 'floor':
      return (await import('./floor-operator.js')).floorOperator(options);
  }
}

const [system, kubeconfigPath, namespace, workers] = process.argv.slice(2);
if (system === undefined || kubeconfigPath === undefined || namespace === undefined) {
  throw new Error('usage: operator-child <system> <kubeconfig> <namespace> <workers>');
}
const now = (): number => performance.timeOrigin + performance.now();
const operator = await load(system as SystemName, {
  kubeconfigPath,
  namespace,
  workers: Number(workers ?? 1),
  autostart: process.env.RECONCILEKIT_BENCH_AUTOSTART === '1',
});
const loadedAtMs = now();
reply({
  type: 'loaded',
  atMs: loadedAtMs,
  rssKiB: process.memoryUsage.rss() / 1024,
  ...(operator.spawnedAtMs === undefined ? {} : { spawnedAtMs: operator.spawnedAtMs }),
});
// Autostart: the operator starts now; a later 'start' waits for it.
const started = process.env.RECONCILEKIT_BENCH_AUTOSTART === '1' ? operator.start() : undefined;

onDriverMessage(async (message) => {
  switch (message.type) {
    case 'start':
      await (started ?? operator.start());
      reply({ type: 'start', atMs: now() });
      break;
    case 'count':
      if (operator.usage !== undefined) reply({ type: 'count', ...(await operator.usage()) });
      else
        reply({
          type: 'count',
          calls: operator.calls(),
          errors: await operator.errors(),
          cpuMs: cpuMs(),
          maxRssKiB: process.resourceUsage().maxRSS,
          rssKiB: process.memoryUsage.rss() / 1024,
          memory: process.memoryUsage(),
          firstCallAtMs: operator.firstCallAtMs?.() ?? 0,
          loadedAtMs,
        });
      break;
    case 'stop':
      await Promise.race([operator.stop(), new Promise((r) => setTimeout(r, 2_000))]);
      // Peers keep sockets and queues alive after stop(); the run is over, so leave at once.
      process.exit(0);
  }
});
