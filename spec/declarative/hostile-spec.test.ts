// Hostile declarative specs are refused with located spec errors, bounded in time and memory: YAML alias
// bombs and recursive aliases, oversized and over-deep specs, cyclic or shared objects built in code, an
// unbounded join; and the view server a declarative operator starts answers no one without its token.
import { statSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeclarativeOperator,
  DeclarativeSpecError,
  evaluateExpression,
  evaluatePipeline,
  ExpressionError,
  loadOperatorSpec,
  MAX_JOIN_DOCUMENTS,
  MAX_SPEC_BYTES,
  MAX_SPEC_DEPTH,
  MAX_SPEC_NODES,
  OperatorGroup,
  parseOperatorSpec,
  type OperatorSpec,
} from '../../lib/index.js';
import { startTestEnvironment, waitFor, type TestEnvironment } from '../../lib/testing/index.js';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

/** Runs fn, returning what it threw, how long it took and how much the heap grew meanwhile. */
function measured(fn: () => unknown): { error: Error; ms: number; heapMb: number } {
  globalThis.gc?.();
  const heap = process.memoryUsage().heapUsed;
  const began = performance.now();
  const error = thrown(fn);
  const ms = performance.now() - began;
  const heapMb = (process.memoryUsage().heapUsed - heap) / 2 ** 20;
  return { error, ms, heapMb };
}

const controllerHead = `controllers:
  - name: bomb
    sources: [{ kind: ConfigMap }]
    target: { kind: Out }
    pipeline:
      '@aggregate':
        - '@project':
            metadata: { name: $.metadata.name }
            spec:
`;

/** 8 levels of 10 aliases each: 10⁸ leaves once expanded, a few hundred bytes of text. */
function aliasBomb(): string {
  const levels = 'abcdefgh'.split('');
  const lines = [`              l0: &a ["x","x","x","x","x","x","x","x","x","x"]`];
  for (let i = 1; i < levels.length; i++) {
    const prev = levels[i - 1] ?? '';
    lines.push(`              l${String(i)}: &${levels[i] ?? ''} [${Array(10).fill(`*${prev}`).join(',')}]`);
  }
  return controllerHead + lines.join('\n') + '\n';
}

describe('hostile declarative specs', () => {
  it('a 10⁸-leaf YAML alias bomb is a spec error in < 1 s and < 100 MB', () => {
    const text = aliasBomb();
    expect(text.length).toBeLessThan(1_000);
    const { error, ms, heapMb } = measured(() => parseOperatorSpec(text, 'bomb.yaml'));
    expect(error).toBeInstanceOf(DeclarativeSpecError);
    expect(error.message).toMatch(/^bomb\.yaml: YAML aliases expand too much \(more than maxAliasCount 100/);
    expect(ms).toBeLessThan(1_000);
    expect(heapMb).toBeLessThan(100);
  });

  it('a recursive alias is a spec error naming it and its line, in < 1 s (not a RangeError)', () => {
    for (const body of [
      '              loop: &a [*a]\n',
      '              loop: &a { more: { again: *a } }\n',
    ]) {
      const { error, ms, heapMb } = measured(() => parseOperatorSpec(controllerHead + body, 'loop.yaml'));
      expect(error).toBeInstanceOf(DeclarativeSpecError);
      expect(error.message).toMatch(
        /^loop\.yaml: the YAML alias \*a \(line 10, column \d+\) refers to the node that contains it/,
      );
      expect(ms).toBeLessThan(1_000);
      expect(heapMb).toBeLessThan(100);
    }
  });

  it('ordinary aliases and merge keys still read', () => {
    const spec = parseOperatorSpec(`base: &src { kind: ConfigMap }
controllers:
  - name: a
    sources: [*src]
    target: { kind: OutA }
  - name: b
    sources: [{ <<: *src, namespace: ns }]
    target: { kind: OutB }
`);
    expect(spec.controllers[0]?.sources[0]).toEqual({ kind: 'ConfigMap' });
    expect(spec.controllers[1]?.sources[0]).toEqual({ kind: 'ConfigMap', namespace: 'ns' });
  });

  it('a spec over MAX_SPEC_BYTES is refused before it is parsed, from text and from a file', async () => {
    const text = `controllers: []\n# ${'x'.repeat(MAX_SPEC_BYTES)}\n`;
    expect(thrown(() => parseOperatorSpec(text, 'big.yaml')).message).toBe(
      `big.yaml: the spec is ${String(Buffer.byteLength(text))} bytes, more than MAX_SPEC_BYTES (${String(MAX_SPEC_BYTES)}): split it into several files`,
    );
    const dir = await mkdtemp(join(tmpdir(), 'rk-hostile-'));
    const file = join(dir, 'big.yaml');
    await writeFile(file, text);
    await expect(loadOperatorSpec(file)).rejects.toThrow(
      `${file}: the spec is ${String(statSync(file).size)} bytes`,
    );
  });

  it('a spec built in code with shared sub-objects (a DAG), a cycle, or over-deep nesting is refused before compiling', () => {
    // 20 levels of an object holding the level below twice: 2²⁰ values once walked.
    let shared: unknown = { '@concat': ['$.a', '$.b'] };
    for (let i = 0; i < 20; i++) shared = { '@dict': { left: shared, right: shared } };
    const dag = {
      controllers: [
        {
          name: 'dag',
          sources: [{ kind: 'ConfigMap' }],
          pipeline: {
            '@aggregate': [{ '@project': { metadata: { name: '$.metadata.name' }, spec: shared } }],
          },
          target: { kind: 'Out' },
        },
      ],
    } as unknown as OperatorSpec;
    const { error, ms } = measured(() => new DeclarativeOperator('dag', dag));
    expect(error).toBeInstanceOf(DeclarativeSpecError);
    expect(error.message).toContain(`the spec holds more than ${String(MAX_SPEC_NODES)} values`);
    expect(ms).toBeLessThan(1_000);

    const cyclic: Record<string, unknown> = { '@concat': ['$.a'] };
    (cyclic['@concat'] as unknown[]).push(cyclic);
    expect(thrown(() => evaluateExpression(cyclic, {})).message).toBe(
      "expression['@concat'][1]: the spec refers to itself here (a recursive YAML alias or a cyclic object): a spec must be a tree",
    );

    let deep: unknown = 'x';
    for (let i = 0; i < MAX_SPEC_DEPTH + 10; i++) deep = [deep];
    expect(thrown(() => evaluateExpression(deep as never, {})).message).toMatch(
      new RegExp(`nested more than ${String(MAX_SPEC_DEPTH)} levels deep$`),
    );
  });

  it('a 100×100×100 join with a condition of true is a bounded ExpressionError naming the join and the sizes', () => {
    const objects = (kind: string): KubernetesObject[] =>
      Array.from({ length: 100 }, (_, i) => ({
        apiVersion: 'v1',
        kind,
        metadata: { name: `${kind.toLowerCase()}-${String(i)}`, namespace: 'default' },
      }));
    const { error, ms, heapMb } = measured(() =>
      evaluatePipeline(
        { '@join': true },
        {
          ConfigMap: objects('ConfigMap'),
          Secret: objects('Secret'),
          ServiceAccount: objects('ServiceAccount'),
        },
      ),
    );
    expect(error).toBeInstanceOf(ExpressionError);
    expect(error.message).toContain(
      `the join of ConfigMap, Secret, ServiceAccount would produce more than MAX_JOIN_DOCUMENTS (${String(MAX_JOIN_DOCUMENTS)}) documents (sources: ConfigMap 100, Secret 100, ServiceAccount 100)`,
    );
    expect(ms).toBeLessThan(2_000);
    expect(heapMb).toBeLessThan(100);
  });
});

describe('the view server of a declarative operator', () => {
  let env: TestEnvironment;
  beforeAll(async () => {
    env = await startTestEnvironment();
  });
  afterAll(async () => {
    await env.close();
  });

  it('answers 401 to a request without its token (no confused deputy, no Secrets for anyone); the operator and getClient() get in', async () => {
    const group = new OperatorGroup({ kubeConfig: env.kubeConfig });
    const op = group.addOperator('guarded', {
      controllers: [
        {
          name: 'copy',
          sources: [{ kind: 'Wish' }],
          pipeline: {
            '@aggregate': [
              {
                '@project': {
                  apiVersion: 'v1',
                  kind: 'ConfigMap',
                  metadata: { name: '$.metadata.name', namespace: '$.metadata.namespace' },
                },
              },
            ],
          },
          target: { apiGroup: '', kind: 'ConfigMap' },
        },
      ],
    });
    await group.start();
    try {
      const server = op.viewServer;
      expect(server).toBeDefined();
      const url = server?.url ?? '';
      const wish = {
        apiVersion: 'guarded.view.reconcilekit.io/v1alpha1',
        kind: 'Wish',
        metadata: { name: 'planted', namespace: 'default' },
      };
      const anonymousWrite = await fetch(
        `${url}/apis/guarded.view.reconcilekit.io/v1alpha1/namespaces/default/wishes`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(wish),
        },
      );
      expect(anonymousWrite.status).toBe(401);
      const anonymousSecrets = await fetch(`${url}/api/v1/secrets`);
      expect(anonymousSecrets.status).toBe(401);
      const wrongToken = await fetch(`${url}/api/v1/secrets`, { headers: { authorization: 'Bearer guess' } });
      expect(wrongToken.status).toBe(401);
      // The group's own client carries the token, and the operator renders what it writes.
      await group.getClient().create(wish);
      await waitFor(
        async () => {
          try {
            return await env.client.get({
              apiVersion: 'v1',
              kind: 'ConfigMap',
              namespace: 'default',
              name: 'planted',
            });
          } catch {
            return undefined;
          }
        },
        { description: 'the ConfigMap rendered from an authenticated view write' },
      );
    } finally {
      await group.stop();
    }
  });
});
