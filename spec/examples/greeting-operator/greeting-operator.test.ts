// The test docs/getting-started.md walks through: the Greeting operator against the embedded API server.
import type { V1ConfigMap } from '@kubernetes/client-node';
import { CRUDResource, Framework, isNotFound, ResourceSet, silentLogger } from 'reconcilekit';
import { startTestEnvironment, waitFor, type TestEnvironment } from 'reconcilekit/testing';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { Greeting } from '../../../examples/greeting-operator/greeting.js';
import { greetingConfigMap } from '../../../examples/greeting-operator/greeting-configmap.js';

let env: TestEnvironment;
let framework: Framework<Greeting>;

beforeAll(async () => {
  // An embedded API server on 127.0.0.1 with the Greeting CRD (from the kind) installed and Established.
  env = await startTestEnvironment({ crds: [Greeting.crd()] });
  // A namespace of its own, so the spec also runs on a shared cluster (`make test-real`).
  greeting.namespace = configMap.namespace = await env.createNamespace('greeting');
  framework = new Framework<Greeting>({
    name: 'greeting-operator',
    kubeConfig: env.kubeConfig,
    resource: Greeting,
    resourceSets: [new ResourceSet<Greeting>({ resources: [new CRUDResource({ ops: greetingConfigMap })] })],
    logger: silentLogger(),
  });
  await framework.start();
});

afterAll(async () => {
  await framework.stop();
  await env.close();
});

const greeting = {
  apiVersion: 'example.com/v1',
  kind: 'Greeting',
  plural: 'greetings',
  namespace: '',
};
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: '' };

afterEach(async () => {
  await env.client.delete({ ...greeting, name: 'hello' }).catch(() => undefined);
});

it('creates, updates and deletes the ConfigMap of a Greeting', async () => {
  // The kind's typed client: the object is checked at compile time against the schema.
  await env.client
    .of(Greeting, greeting.namespace)
    .create({ metadata: { name: 'hello' }, spec: { message: 'Hello!' } });

  // Created: the operator's first pass adds its finalizer, the next one creates the ConfigMap.
  const created = await waitFor(() => env.client.get<V1ConfigMap>({ ...configMap, name: 'hello-greeting' }));
  expect(created.data).toEqual({ message: 'Hello!' });

  // Updated: a new message reaches the ConfigMap.
  await env.client.patch({ ...greeting, name: 'hello' }, { spec: { message: 'Hi again' } }, 'merge');
  await waitFor(async () => {
    const current = await env.client.get<V1ConfigMap>({ ...configMap, name: 'hello-greeting' });
    return current.data?.message === 'Hi again';
  });

  // Deleted: the delete path removes the ConfigMap, then the finalizer, so the Greeting goes away.
  await env.client.delete({ ...greeting, name: 'hello' });
  const gone = async (ref: { name: string } & typeof configMap): Promise<boolean> =>
    env.client.get(ref).then(
      () => false,
      (e: unknown) => isNotFound(e),
    );
  await waitFor(() => gone({ ...configMap, name: 'hello-greeting' }));
  await waitFor(() => gone({ ...greeting, name: 'hello' }));
});
