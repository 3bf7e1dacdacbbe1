import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OperatorGroup,
  STATUS_CHANNEL_BUFFER_SIZE,
  type ControllerError,
  type OperatorSpec,
} from '../../lib/index.js';
import { startTestEnvironment, waitFor, type TestEnvironment } from '../../lib/testing/index.js';

let env: TestEnvironment;
beforeAll(async () => {
  env = await startTestEnvironment();
});
afterAll(async () => {
  await env.close();
});

function spec(ns: string, suffix: string): OperatorSpec {
  return {
    controllers: [
      {
        name: 'names',
        sources: [{ apiGroup: '', kind: 'ConfigMap', namespace: ns }],
        pipeline: [
          {
            '@project': {
              metadata: {
                name: { '@concat': ['$.metadata.name', suffix] },
                namespace: '$.metadata.namespace',
              },
            },
          },
        ],
        target: { kind: 'Named' },
      },
    ],
  };
}

describe('OperatorGroup', () => {
  it('D11 + D12: operators keep separate views; delete removes one operator and its views; upsert converges', async () => {
    expect(STATUS_CHANNEL_BUFFER_SIZE).toBe(64);
    const ns = await env.createNamespace('grp');
    const group = new OperatorGroup({ kubeConfig: env.kubeConfig });
    group.addOperator('op1', spec(ns, '-one'));
    group.addOperator('op2', spec(ns, '-two'));
    await group.start();
    try {
      const client = group.getClient();
      const names = async (op: string): Promise<string[]> => {
        try {
          const list = await client.list({
            apiVersion: `${op}.view.reconcilekit.io/v1alpha1`,
            kind: 'Named',
            namespace: ns,
          });
          return list.items.map((o) => o.metadata?.name ?? '').sort();
        } catch {
          return [];
        }
      };
      await env.client.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: ns },
      });
      await waitFor(async () => (await names('op1')).length === 1 && (await names('op2')).length === 1, {
        description: 'views of both',
      });
      expect(await names('op1')).toEqual(['a-one']);
      expect(await names('op2')).toEqual(['a-two']);
      // The routing client reaches the cluster for everything else.
      expect(
        (await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a' })).metadata?.name,
      ).toBe('a');

      await group.deleteOperator('op1');
      expect(group.getOperator('op1')).toBeUndefined();
      expect(await names('op1')).toEqual([]);
      expect(await names('op2')).toEqual(['a-two']);
      await group.deleteOperator('never-there');

      const replaced = await group.upsertOperator('op2', spec(ns, '-new'));
      expect(group.getOperator('op2')).toBe(replaced);
      await waitFor(async () => (await names('op2')).join() === 'a-new', {
        description: 'op2 converged to its new spec',
      });
      await expect(group.upsertOperator('op2', { controllers: [] })).rejects.toThrow(
        /must be a list of 1–255 controllers/,
      );
      expect(group.getOperator('op2')).toBe(replaced);
    } finally {
      await group.stop();
    }
  });

  it('errors() delivers controller errors in order and ends when the group stops', async () => {
    const group = new OperatorGroup({ kubeConfig: env.kubeConfig, apiServer: env.apiServer });
    group.addOperator('bad', { controllers: [{ name: 'x', sources: [], target: { kind: 'X' } }] });
    const seen: ControllerError[] = [];
    const reading = (async () => {
      for await (const err of group.errors()) seen.push(err);
    })();
    await group.start();
    group.getOperator('bad')?.addController({ name: 'y', sources: [], target: { kind: 'X' } });
    await waitFor(() => seen.length === 1, { description: 'the late error' });
    await group.stop();
    await reading;
    // The constructor's error came before anyone listened to the operator; the later one reached the stream.
    expect(seen.map((e) => [e.operator, e.controller, e.critical])).toEqual([['bad', 'y', true]]);
  });
});
