// The smallest useful operator: every Greeting gets a ConfigMap with its message (README.md).
import { CRUDResource, Framework, ResourceSet } from 'reconcilekit';
import { Greeting } from './greeting.js';
import { greetingConfigMap } from './greeting-configmap.js';

const framework = new Framework<Greeting>({
  name: 'greeting-operator',
  resource: Greeting,
  resourceSets: [new ResourceSet<Greeting>({ resources: [new CRUDResource({ ops: greetingConfigMap })] })],
});

process.once('SIGTERM', () => void framework.stop());
await framework.start();
