// Child process: runs one operator under test.
// argv: <system> <kubeconfig> <namespace> <workers>
// Messages out: {type:'loaded'} once the modules are imported; {type:'start'} once start() resolved;
// {type:'count', calls, errors, cpuMs} when asked (cpuMs: user + system CPU of this process so far). In: 'start', 'count', 'stop'.
import { cpuMs, onDriverMessage, reply } from '../lib/child.js';
import type { BenchOperator, BenchOperatorOptions, SystemName } from './bench-operator.js';

async function load(system: SystemName, options: BenchOperatorOptions): Promise<BenchOperator> {
  switch (system) {
    case 'reconcilekit':
      return (await import('./reconcilekit-operator.js')).reconcilekitOperator(options);
    case 'reconcilekit-controller':
      return (await import('./reconcilekit-controller-operator.js')).reconcilekitControllerOperator(options);
    case 'dot-i':
      return (await import('./dot-i-operator.js')).dotIOperator(options);
    case 'hand-written':
      return (await import('./hand-written-operator.js')).handWrittenOperator(options);
    case 'controller-runtime':
      return (await import('./controller-runtime-operator.js')).controllerRuntimeOperator(options);
    case 'floor':
      return (await import('./floor-operator.js')).floorOperator(options);
  }
}

const [system, kubeconfigPath, namespace, workers] = process.argv.slice(2);
if (system === undefined || kubeconfigPath === undefined || namespace === undefined) {
  throw new Error('usage: operator-child <system> <kubeconfig> <namespace> <workers>');
}
const operator = await load(system as SystemName, {
  kubeconfigPath,
  namespace,
  workers: Number(workers ?? 1),
});
reply({ type: 'loaded' });

onDriverMessage(async (message) => {
  switch (message.type) {
    case 'start':
      await operator.start();
      reply({ type: 'start' });
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
        });
      break;
    case 'stop':
      await Promise.race([operator.stop(), new Promise((r) => setTimeout(r, 2_000))]);
      // Peers keep sockets and queues alive after stop(); the run is over, so leave at once.
      process.exit(0);
  }
});
