import { Counter, register as globalRegistry, Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReconcileContext } from '../../../../lib/context/reconcile-context.js';
import { isInvalidConfig } from '../../../../lib/errors/invalid-config-error.js';
import { CRUDResource } from '../../../../lib/crud/resource/crud-resource.js';
import { processDelete, processUpdate } from '../../../../lib/crud/resource/process.js';
import {
  metricsResource,
  RESOURCE_OPERATION_DURATION_SECONDS,
  RESOURCE_OPERATION_TOTAL,
  wrapWithMetrics,
} from '../../../../lib/crud/resource/wrappers/metrics.js';
import { wrapWithRetry } from '../../../../lib/crud/resource/wrappers/retry.js';
import { underlying } from '../../../../lib/crud/resource/wrappers/wrapped-resource.js';
import { fullFlow, recordingOps, recordingResource, type Obj } from '../helpers.js';

const obj: Obj = { metadata: { name: 'demo' } };
const fast = () => ({ startingDelay: 1, timeMultiple: 1, jitter: 'none' as const, numOfAttempts: 3 });

interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

async function samples(registry: Registry, name: string): Promise<Sample[]> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return [];
  return (await metric.get()).values as Sample[];
}

/** Counter value per operation for one resource. */
async function counts(registry: Registry, resource: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const s of await samples(registry, RESOURCE_OPERATION_TOTAL)) {
    if (s.labels.resource === resource) out[String(s.labels.operation)] = s.value;
  }
  return out;
}

/** Histogram observation count per operation for one resource. */
async function observations(registry: Registry, resource: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const s of await samples(registry, RESOURCE_OPERATION_DURATION_SECONDS)) {
    if (s.metricName === `${RESOURCE_OPERATION_DURATION_SECONDS}_count` && s.labels.resource === resource) {
      out[String(s.labels.operation)] = s.value;
    }
  }
  return out;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('wrapWithMetrics over CRUD resources', () => {
  it.each([
    ['processUpdate', processUpdate, 'update', 'NewUpdatePatch'],
    ['processDelete', processDelete, 'delete', 'NewDeletePatch'],
  ] as const)(
    '%s: preserves step order and counts and times each step once',
    async (_label, process, path, patchStep) => {
      const registry = new Registry();
      const calls: string[] = [];
      const resources = wrapWithMetrics(
        [
          new CRUDResource({ ops: recordingOps('a', calls) }),
          new CRUDResource({ ops: recordingOps('b', calls) }),
        ],
        { registry },
      );
      await process(new ReconcileContext(), obj, resources);
      expect(calls).toEqual([...fullFlow('a', path), ...fullFlow('b', path)]);
      const expected = {
        GetCurrentState: 1,
        GetDesiredState: 1,
        [patchStep]: 1,
        ApplyCreateChange: 1,
        ApplyDeleteChange: 1,
        ApplyUpdateChange: 1,
      };
      expect(await counts(registry, 'a')).toEqual(expected);
      expect(await counts(registry, 'b')).toEqual(expected);
      expect(await observations(registry, 'a')).toEqual(expected);
    },
  );

  it('counts a failed step too', async () => {
    const registry = new Registry();
    const [wrapped] = wrapWithMetrics(
      [new CRUDResource({ ops: recordingOps('a', [], { failures: { GetDesiredState: 1 } }) })],
      {
        registry,
      },
    );
    await expect(processUpdate(new ReconcileContext(), obj, [wrapped!])).rejects.toThrow(
      'a.GetDesiredState failed',
    );
    expect(await counts(registry, 'a')).toEqual({ GetCurrentState: 1, GetDesiredState: 1 });
  });

  it('times the step duration in seconds', async () => {
    const registry = new Registry();
    const ops = recordingOps('slow', []);
    const slow = {
      ...ops,
      getCurrentState: async (ctx: ReconcileContext, o: Obj) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return ops.getCurrentState(ctx, o);
      },
    };
    await processUpdate(
      new ReconcileContext(),
      obj,
      wrapWithMetrics([new CRUDResource({ ops: slow })], { registry }),
    );
    const sum = (await samples(registry, RESOURCE_OPERATION_DURATION_SECONDS)).find(
      (s) =>
        s.metricName === `${RESOURCE_OPERATION_DURATION_SECONDS}_sum` &&
        s.labels.operation === 'GetCurrentState',
    );
    expect(sum?.value).toBeGreaterThanOrEqual(0.025);
    expect(sum?.value).toBeLessThan(5);
  });

  it('retry then metrics: one observation per step, retries included', async () => {
    const registry = new Registry();
    const calls: string[] = [];
    const resources = wrapWithMetrics(
      wrapWithRetry(
        [new CRUDResource({ ops: recordingOps('a', calls, { failures: { ApplyDeleteChange: 2 } }) })],
        {
          backOffFactory: fast,
        },
      ),
      { registry },
    );
    await processUpdate(new ReconcileContext(), obj, resources);
    expect(calls.filter((c) => c === 'a.ApplyDeleteChange')).toHaveLength(3);
    expect((await counts(registry, 'a')).ApplyDeleteChange).toBe(1);
    expect((await observations(registry, 'a')).ApplyDeleteChange).toBe(1);
  });

  it('metrics then retry: every attempt is observed', async () => {
    const registry = new Registry();
    const resources = wrapWithRetry(
      wrapWithMetrics(
        [new CRUDResource({ ops: recordingOps('a', [], { failures: { ApplyDeleteChange: 2 } }) })],
        {
          registry,
        },
      ),
      { backOffFactory: fast },
    );
    await processUpdate(new ReconcileContext(), obj, resources);
    expect((await counts(registry, 'a')).ApplyDeleteChange).toBe(3);
    expect((await counts(registry, 'a')).ApplyUpdateChange).toBe(1);
  });

  it('stays CRUD-extractable, unwraps through retry to the original, and does not change it', () => {
    const ops = recordingOps('a', []);
    const original = new CRUDResource({ ops });
    const [wrapped] = wrapWithMetrics(wrapWithRetry([original]), { registry: new Registry() });
    expect(wrapped).toBeInstanceOf(CRUDResource);
    expect(wrapped!.name).toBe('a');
    expect(underlying(wrapped!)).toBe(original);
    expect(original.ops).toBe(ops);
  });
});

describe('wrapWithMetrics over plain resources', () => {
  it('counts EnsureCreated and EnsureDeleted calls', async () => {
    const registry = new Registry();
    const calls: string[] = [];
    const wrapped = metricsResource(recordingResource('p', calls), { registry });
    await wrapped.ensureCreated(new ReconcileContext(), obj);
    await wrapped.ensureCreated(new ReconcileContext(), obj);
    await wrapped.ensureDeleted(new ReconcileContext(), obj);
    expect(calls).toEqual(['p.EnsureCreated', 'p.EnsureCreated', 'p.EnsureDeleted']);
    expect(await counts(registry, 'p')).toEqual({ EnsureCreated: 2, EnsureDeleted: 1 });
    expect(await observations(registry, 'p')).toEqual({ EnsureCreated: 2, EnsureDeleted: 1 });
    expect(wrapped).not.toBeInstanceOf(CRUDResource);
    expect(wrapped.wrapped().name).toBe('p');
  });
});

describe('wrapWithMetrics registries', () => {
  it('reuses the metrics already in a registry, so wrapping twice neither throws nor duplicates series', async () => {
    const registry = new Registry();
    const [a] = wrapWithMetrics([recordingResource('p', [])], { registry });
    const [b] = wrapWithMetrics([recordingResource('p', [])], { registry });
    await a!.ensureCreated(new ReconcileContext(), obj);
    await b!.ensureCreated(new ReconcileContext(), obj);
    expect(await counts(registry, 'p')).toEqual({ EnsureCreated: 2 });
    const text = await registry.metrics();
    expect(text.match(/^# TYPE reconcilekit_resource_operation_total counter$/gm)).toHaveLength(1);
    expect(text).toContain('reconcilekit_resource_operation_total{resource="p",operation="EnsureCreated"} 2');
  });

  it('never touches the global registry: without a registry it uses a private one', async () => {
    const before = await globalRegistry.metrics();
    const [wrapped] = wrapWithMetrics([recordingResource('p', [])]);
    await wrapped!.ensureCreated(new ReconcileContext(), obj);
    expect(globalRegistry.getSingleMetric(RESOURCE_OPERATION_TOTAL)).toBeUndefined();
    expect(await globalRegistry.metrics()).toBe(before);
  });

  it('rejects a registry holding a metric of the same name and another type', () => {
    const registry = new Registry();
    new Counter({ name: RESOURCE_OPERATION_DURATION_SECONDS, help: 'clash', registers: [registry] });
    let caught: unknown;
    try {
      wrapWithMetrics([], { registry });
    } catch (err) {
      caught = err;
    }
    expect(isInvalidConfig(caught)).toBe(true);
    expect((caught as Error).message).toBe(
      `registry already holds ${RESOURCE_OPERATION_DURATION_SECONDS}, and it is not a Histogram`,
    );
  });

  it('rejects a registry that is not a prom-client Registry', () => {
    expect(() => wrapWithMetrics([], { registry: {} as never })).toThrow(
      'options.registry must be a prom-client Registry',
    );
  });

  it('rejects a list that is not an array', () => {
    expect(() => wrapWithMetrics(undefined as never)).toThrow('resources must be an array of Resource');
  });
});
