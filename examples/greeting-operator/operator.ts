// The greeting operator, built but not started: main.ts runs it; `reconcilekit generate rbac` reads its
// configuration and `rbac` (make manifests writes rbac.yaml beside it).
import { CRUDResource, Framework, ResourceSet, type RbacDeclaration } from 'reconcilekit';
import { Greeting } from './greeting.js';
import { greetingConfigMap } from './greeting-configmap.js';

export const framework = new Framework<Greeting>({
  name: 'greeting-operator',
  resource: Greeting,
  resourceSets: [new ResourceSet<Greeting>({ resources: [new CRUDResource({ ops: greetingConfigMap })] })],
});

/** What greetingConfigMap does itself: reads through the cache (list, watch), creates, replaces, deletes. */
export const rbac: RbacDeclaration = {
  uses: [
    {
      apiVersion: 'v1',
      plural: 'configmaps',
      verbs: ['list', 'watch', 'create', 'update', 'delete'],
      reason: 'the ConfigMap of each Greeting: cached reads, create, replace, delete',
    },
  ],
};
