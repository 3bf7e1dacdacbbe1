import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  Controller,
  createLogger,
  DEFAULT_RETRY_POLICY,
  exponentialBackoffRetryPolicy,
  isInvalidConfig,
  isReconcileError,
  isTerminalError,
  predicates,
  ReconcileError,
  TerminalError,
  type SourceEvent,
} from '../../lib/index.js';

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

const base = {
  name: 'widgets',
  kubeConfig: kubeConfig(),
  resource: { apiVersion: 'example.com/v1', kind: 'Widget' },
  reconciler: () => undefined,
  logger: createLogger({ silent: true }),
};

function construction(config: unknown): unknown {
  try {
    new Controller(config as never);
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('Controller configuration', () => {
  it.each([
    ['a config that is not an object', undefined, /config must be an object: new Controller/],
    ['no resource', { ...base, resource: undefined }, /config\.resource is required/],
    ['no reconciler', { ...base, reconciler: undefined }, /config\.reconciler is required/],
    [
      'a reconciler without reconcile',
      { ...base, reconciler: { cleanup: () => undefined } },
      /config\.reconciler must be a function/,
    ],
    [
      'a cleanup that is no function',
      { ...base, reconciler: { reconcile: () => undefined, cleanup: 1 } },
      /config\.reconciler\.cleanup must be a function/,
    ],
    [
      'a resource without kind',
      { ...base, resource: { apiVersion: 'v1' } },
      /config\.resource\.kind must be a non-empty string/,
    ],
    ['watches that are no list', { ...base, watches: {} }, /config\.watches must be an array/],
    [
      'a watch without map',
      { ...base, watches: [{ apiVersion: 'v1', kind: 'ConfigMap' }] },
      /config\.watches\[0\]\.map is required/,
    ],
    [
      'a watch without kind',
      { ...base, watches: [{ apiVersion: 'v1', map: () => [] }] },
      /config\.watches\[0\]\.kind must be a non-empty string/,
    ],
    [
      'a predicate that is no function',
      { ...base, predicates: [true] },
      /config\.predicates\[0\] must be a predicate function/,
    ],
    [
      'a retry policy that is no function',
      { ...base, retryPolicy: 5 },
      /config\.retryPolicy must be a function/,
    ],
    ['a bad finalizer', { ...base, finalizer: 'bad name' }, /config\.finalizer must be a qualified name/],
  ])('rejects %s with a typed error saying what to fix', (_what, config, message) => {
    const err = construction(config);
    expect(isInvalidConfig(err)).toBe(true);
    expect(String(err)).toMatch(message);
  });

  it('manages a finalizer only when the reconciler has cleanup', () => {
    expect(new Controller(base).config.finalizer).toBe(false);
    const withCleanup = new Controller({
      ...base,
      reconciler: { reconcile: () => undefined, cleanup: () => undefined },
    });
    expect(withCleanup.config.finalizer).toBe('reconcilekit.io/widgets');
    expect(new Controller({ ...base, finalizer: 'example.com/mine' }).config.finalizer).toBe(
      'example.com/mine',
    );
  });
});

describe('retry policies', () => {
  it('doubles the delay and gives up after maxAttempts retries (grafana: 7 calls for the default)', () => {
    const policy = exponentialBackoffRetryPolicy(1_000, 2);
    expect([0, 1, 2, 3].map((a) => policy(new Error('x'), a))).toEqual([
      { retry: true, delayMs: 1_000 },
      { retry: true, delayMs: 2_000 },
      { retry: true, delayMs: 4_000 },
      { retry: false },
    ]);
    const delays: number[] = [];
    for (let attempt = 0; ; attempt++) {
      const d = DEFAULT_RETRY_POLICY(new Error('x'), attempt);
      if (!d.retry) break;
      delays.push(d.delayMs);
    }
    expect(delays).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000]);
    expect(delays.length + 1).toBe(7);
  });

  it('rejects nonsense parameters', () => {
    expect(isInvalidConfig(construction2(() => exponentialBackoffRetryPolicy(-1, 2)))).toBe(true);
    expect(isInvalidConfig(construction2(() => exponentialBackoffRetryPolicy(10, 1.5)))).toBe(true);
  });
});

function construction2(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('errors and predicates', () => {
  it('recognises ReconcileError and TerminalError, also as a cause', () => {
    const re = new ReconcileError('x', { state: { a: 1 }, requeueAfterMs: 5 });
    expect(isReconcileError(re)).toBe(true);
    expect(re.state).toEqual({ a: 1 });
    expect(isTerminalError(new Error('wrapped', { cause: new TerminalError('bad spec') }))).toBe(true);
    expect(isTerminalError(new Error('plain'))).toBe(false);
  });

  it('filters updates only, and composes', () => {
    const obj = (generation: number, labels: Record<string, string> = {}) => ({
      metadata: { generation, labels, resourceVersion: String(generation) },
    });
    const update = (a: number, b: number, la = {}, lb = {}): SourceEvent => ({
      type: 'update',
      old: obj(a, la),
      object: obj(b, lb),
    });
    const gen = predicates.generationChanged();
    expect(gen({ type: 'add', object: obj(1) })).toBe(true);
    expect(gen({ type: 'delete', object: obj(1) })).toBe(true);
    expect(gen(update(1, 1))).toBe(false);
    expect(gen(update(1, 2))).toBe(true);
    const labels = predicates.labelsChanged();
    expect(labels(update(1, 1, { a: '1' }, { a: '2' }))).toBe(true);
    expect(labels(update(1, 2, { a: '1' }, { a: '1' }))).toBe(false);
    expect(predicates.or(gen, labels)(update(1, 1, {}, { b: '1' }))).toBe(true);
    expect(predicates.and(gen, labels)(update(1, 2))).toBe(false);
    expect(predicates.not(gen)(update(1, 1))).toBe(true);
    expect(predicates.resourceVersionChanged()(update(3, 3))).toBe(false);
    expect(predicates.annotationsChanged()(update(1, 1))).toBe(false);
  });
});
