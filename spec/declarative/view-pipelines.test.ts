import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeclarativeOperator, type OperatorSpec } from '../../lib/index.js';
import { startTestEnvironment, waitFor, type TestEnvironment } from '../../lib/testing/index.js';

let env: TestEnvironment;
beforeAll(async () => {
  env = await startTestEnvironment();
});
afterAll(async () => {
  await env.close();
});

interface View extends KubernetesObject {
  spec?: Record<string, unknown>;
}

async function views(op: DeclarativeOperator, kind: string, namespace: string): Promise<View[]> {
  try {
    const list = await env.client.list<View>({ apiVersion: `${op.viewGroup}/v1alpha1`, kind, namespace });
    return list.items.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  } catch {
    return [];
  }
}

function cm(
  namespace: string,
  name: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    data,
  } as KubernetesObject;
}

const d2: OperatorSpec = {
  controllers: [
    {
      name: 'cm-view',
      sources: [{ apiGroup: '', kind: 'ConfigMap' }],
      pipeline: {
        '@aggregate': [
          {
            '@project': {
              metadata: { name: '$.metadata.name', namespace: '$.metadata.namespace' },
              spec: { x: '$.data.x' },
            },
          },
        ],
      },
      target: { kind: 'CmView' },
    },
  ],
};

describe('DeclarativeOperator on the embedded server', () => {
  it('D2: a ConfigMap projected into a view follows the ConfigMap through create, update and delete', async () => {
    const ns = await env.createNamespace('d2');
    const op = new DeclarativeOperator('d2', d2, { kubeConfig: env.kubeConfig, apiServer: env.apiServer });
    await op.start();
    try {
      await env.client.create(cm(ns, 'a', { x: '1' }));
      await waitFor(async () => (await views(op, 'CmView', ns)).find((v) => v.spec?.x === '1'), {
        description: 'view a',
      });
      await env.client.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' },
        { data: { x: '2' } },
        'merge',
      );
      await waitFor(async () => (await views(op, 'CmView', ns)).find((v) => v.spec?.x === '2'), {
        description: 'view a updated',
      });
      await env.client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' });
      await waitFor(async () => (await views(op, 'CmView', ns)).length === 0, {
        description: 'view a deleted',
      });
      const status = op.getStatus(3).controllers[0];
      expect(status?.conditions[0]).toMatchObject({
        type: 'Ready',
        status: 'True',
        reason: 'Ready',
        observedGeneration: 3,
      });
    } finally {
      await op.stop();
    }
  });
});
