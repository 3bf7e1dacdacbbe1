// The smallest useful operator: every Greeting gets a ConfigMap with its message (README.md).
import { CRUDResource, Framework, ResourceSet } from 'reconcilekit';
import { greetingConfigMap, type Greeting } from './greeting-configmap.js';

const framework = new Framework<Greeting>({
  name: 'greeting-operator',
  resource: { apiVersion: 'example.com/v1', kind: 'Greeting', plural: 'greetings' },
  resourceSets: [new ResourceSet<Greeting>({ resources: [new CRUDResource({ ops: greetingConfigMap })] })],
});

process.once('SIGTERM', () => void framework.stop());
await framework.start();
