import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { DeclarativeSpecError, ExpressionError } from '../../lib/declarative/declarative-spec-error.js';
import { compilePipeline, evaluatePipeline } from '../../lib/declarative/evaluate-pipeline.js';

function cm(
  name: string,
  data: Record<string, string>,
  labels: Record<string, string> = {},
): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', labels },
    data,
  } as KubernetesObject;
}
function secret(name: string): KubernetesObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default' } };
}
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

const project = {
  '@project': {
    metadata: { name: '$.metadata.name', namespace: '$.metadata.namespace' },
    spec: { x: '$.data.x' },
  },
};

describe('evaluatePipeline', () => {
  it('without a pipeline, one source passes its objects through', () => {
    const objs = [cm('a', { x: '1' })];
    expect(evaluatePipeline(undefined, { ConfigMap: objs })).toEqual(objs);
  });

  it('D2: @project reshapes each object', () => {
    expect(evaluatePipeline([project], { ConfigMap: [cm('a', { x: '1' }), cm('b', { x: '2' })] })).toEqual([
      { metadata: { name: 'a', namespace: 'default' }, spec: { x: '1' } },
      { metadata: { name: 'b', namespace: 'default' }, spec: { x: '2' } },
    ]);
  });

  it('D3: @select keeps the matching objects only', () => {
    const out = evaluatePipeline(
      { '@aggregate': [{ '@select': { '@eq': ['$.data.on', 'yes'] } }, project] },
      {
        ConfigMap: [cm('a', { on: 'yes', x: '1' }), cm('b', { on: 'no' })],
      },
    );
    expect(out.map((o) => o.metadata?.name)).toEqual(['a']);
  });

  it('D4: @unwind emits <name>-<i> per list item', () => {
    const s = { apiVersion: 'v1', kind: 'Thing', metadata: { name: 's' }, spec: { items: ['p', 'q', 'r'] } };
    const out = evaluatePipeline([{ '@unwind': '$.spec.items' }], { Thing: [s] }) as unknown as {
      metadata: { name: string };
      spec: { items: string };
    }[];
    expect(out.map((o) => [o.metadata.name, o.spec.items])).toEqual([
      ['s-0', 'p'],
      ['s-1', 'q'],
      ['s-2', 'r'],
    ]);
    expect(
      evaluatePipeline([{ '@demux': '$.spec.items' }], {
        Thing: [{ ...s, spec: { items: ['p', 'q'] } } as KubernetesObject],
      }),
    ).toHaveLength(2);
    expect(s.spec.items).toEqual(['p', 'q', 'r']);
  });

  it('D5: @gather groups by key, values in name order, the first document carries the rest', () => {
    // Raw stage output (metadata.name holds the gathered list, so it is not yet a valid object).
    const out = compilePipeline(
      [{ '@gather': ['$.metadata.labels.app', '$.metadata.name'] }],
      ['ConfigMap'],
      'p',
    ).run({
      ConfigMap: [cm('c3', {}, { app: 'a' }), cm('c2', {}, { app: 'b' }), cm('c1', {}, { app: 'a' })],
    }) as unknown as { metadata: { name: string[]; labels: { app: string } } }[];
    expect(out.map((o) => [o.metadata.labels.app, o.metadata.name])).toEqual([
      ['a', ['c1', 'c3']],
      ['b', ['c2']],
    ]);
    // @mux is the later name; a @project after it names the groups.
    const named = evaluatePipeline(
      [
        { '@mux': ['$.metadata.labels.app', '$.metadata.name'] },
        { '@project': { metadata: { name: '$.metadata.labels.app' }, names: '$.metadata.name' } },
      ],
      { ConfigMap: [cm('c1', {}, { app: 'a' }), cm('c2', {}, { app: 'a' })] },
    );
    expect(named).toEqual([{ metadata: { name: 'a' }, names: ['c1', 'c2'] }]);
  });

  it('D6: @join pairs objects by its condition; the document is { <Kind>: object }', () => {
    const spec = {
      '@join': { '@eq': ['$.ConfigMap.metadata.name', '$.Secret.metadata.name'] },
      '@aggregate': [
        { '@project': { metadata: { name: '$.ConfigMap.metadata.name' }, secret: '$.Secret.metadata.name' } },
      ],
    };
    expect(
      evaluatePipeline(spec, {
        ConfigMap: [cm('a', {}), cm('b', {}), cm('c', {})],
        Secret: [secret('b'), secret('a')],
      }),
    ).toEqual([
      { metadata: { name: 'a' }, secret: 'a' },
      { metadata: { name: 'b' }, secret: 'b' },
    ]);
    expect(evaluatePipeline(spec, { ConfigMap: [cm('a', {})], Secret: [] })).toEqual([]);
  });

  it('a join condition of any shape is honoured (nested loop when no equality is indexable)', () => {
    const spec = {
      '@join': {
        '@or': [
          { '@eq': ['$.ConfigMap.metadata.name', '$.Secret.metadata.name'] },
          { '@eq': ['$.Secret.metadata.name', 'x'] },
        ],
      },
      '@aggregate': [
        {
          '@project': {
            metadata: { name: { '@concat': ['$.ConfigMap.metadata.name', '-', '$.Secret.metadata.name'] } },
          },
        },
      ],
    };
    const out = evaluatePipeline(spec, {
      ConfigMap: [cm('a', {}), cm('b', {})],
      Secret: [secret('a'), secret('x')],
    });
    expect(out.map((o) => o.metadata?.name).sort()).toEqual(['a-a', 'a-x', 'b-x']);
  });

  it('a three-way equi-join over 1,000 objects each finds exactly the matching triples', () => {
    const n = 1000;
    const mk = (kind: string, i: number): KubernetesObject =>
      ({
        apiVersion: 'v1',
        kind,
        metadata: { name: `${kind.toLowerCase()}-${String(i)}` },
        spec: { ref: `k${String(i % 500)}` },
      }) as KubernetesObject;
    const inputs = {
      A: Array.from({ length: n }, (_, i) => mk('A', i)),
      B: Array.from({ length: n }, (_, i) => mk('B', i)),
      C: Array.from({ length: n }, (_, i) => mk('C', i)),
    };
    const spec = {
      '@join': {
        '@and': [{ '@eq': ['$.A.spec.ref', '$.B.spec.ref'] }, { '@eq': ['$.B.spec.ref', '$.C.spec.ref'] }],
      },
      '@aggregate': [
        {
          '@project': {
            metadata: {
              name: { '@concat': ['$.A.metadata.name', '.', '$.B.metadata.name', '.', '$.C.metadata.name'] },
            },
          },
        },
      ],
    };
    // Each ref value is shared by 2 objects of each kind: 2 × 2 × 2 triples per value, 500 values.
    expect(evaluatePipeline(spec, inputs)).toHaveLength(4000);
  });

  it('bad pipelines are located spec errors', () => {
    const two = { ConfigMap: [], Secret: [] };
    let err = thrown(() => evaluatePipeline([project], two));
    expect(err).toBeInstanceOf(DeclarativeSpecError);
    expect(err.message).toBe("pipeline: 2 sources (ConfigMap, Secret) need a '@join' condition");
    err = thrown(() =>
      evaluatePipeline({ '@aggregate': [project, { '@sort': 1 }] } as never, { ConfigMap: [] }),
    );
    expect((err as DeclarativeSpecError).path).toBe("pipeline['@aggregate'][1]['@sort']");
    err = thrown(() =>
      evaluatePipeline({ '@aggregate': [{ '@select': { '@eq': ['$.a[?(@.x)]', 1] } }] }, { ConfigMap: [] }),
    );
    expect((err as DeclarativeSpecError).path).toBe("pipeline['@aggregate'][0]['@select']['@eq'][0]");
    err = thrown(() => evaluatePipeline([{ '@unwind': 'spec.items' }], { ConfigMap: [] }));
    expect(err.message).toContain('@unwind takes a literal JSONPath');
    expect(() => compilePipeline(undefined, ['ConfigMap', 'ConfigMap'], 'p')).toThrow(
      /two sources of one kind/,
    );
  });

  it('bad data is a located ExpressionError', () => {
    let err = thrown(() =>
      evaluatePipeline([{ '@select': '$.data.x' }], { ConfigMap: [cm('a', { x: '1' })] }),
    );
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toBe('pipeline[0][\'@select\']: @select: the condition must be a boolean, got "1"');
    err = thrown(() => evaluatePipeline([{ '@project': '$.data.x' }], { ConfigMap: [cm('a', { x: '1' })] }));
    expect(err.message).toContain('@project must produce an object');
    err = thrown(() =>
      evaluatePipeline([{ '@project': { spec: '$.data' } }], { ConfigMap: [cm('a', { x: '1' })] }),
    );
    expect(err.message).toContain('output 0 has no metadata.name');
    err = thrown(() => evaluatePipeline([{ '@unwind': '$.data.x' }], { ConfigMap: [cm('a', { x: '1' })] }));
    expect(err.message).toContain('must be a list, got "1"');
  });
});
