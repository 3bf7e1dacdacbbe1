import { describe, expect, it } from 'vitest';
import { reconciliationCanceled, resourceCanceled } from '../../../lib/context/flags.js';
import { ReconcileContext } from '../../../lib/context/reconcile-context.js';
import { isExecutionFailed } from '../../../lib/errors/execution-failed-error.js';
import { CRUDResource } from '../../../lib/crud/resource/crud-resource.js';
import { processDelete, processUpdate } from '../../../lib/crud/resource/process.js';
import type { Resource } from '../../../lib/crud/resource/resource.js';
import {
  capturedLogger,
  fullFlow,
  recordingOps,
  recordingResource,
  type Obj,
  type RecordingOpsOptions,
} from './helpers.js';

const obj: Obj = { metadata: { name: 'demo' } };

const paths = [
  ['processUpdate', processUpdate, 'EnsureCreated', 'update'],
  ['processDelete', processDelete, 'EnsureDeleted', 'delete'],
] as const;

function names(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `r${i}`);
}

describe.each(paths)('%s', (_label, process, ensure, path) => {
  it('rejects an empty resource list with ExecutionFailedError', async () => {
    const err: unknown = await process(new ReconcileContext(), obj, []).catch((e: unknown) => e);
    expect(isExecutionFailed(err)).toBe(true);
    expect((err as Error).message).toMatch(/^resources must not be empty/);
  });

  describe('plain resources', () => {
    it.each([1, 2, 5])('runs %i resources once each, in order', async (n) => {
      const calls: string[] = [];
      await process(
        new ReconcileContext(),
        obj,
        names(n).map((name) => recordingResource(name, calls)),
      );
      expect(calls).toEqual(names(n).map((name) => `${name}.${ensure}`));
    });

    it('reconciliationCanceled raised in r2 stops after r2 with success', async () => {
      const calls: string[] = [];
      const resources = names(5).map((name) =>
        recordingResource(
          name,
          calls,
          name === 'r2'
            ? (ctx) => {
                reconciliationCanceled.set(ctx);
              }
            : undefined,
        ),
      );
      await expect(process(new ReconcileContext(), obj, resources)).resolves.toBeUndefined();
      expect(calls).toEqual(['r0', 'r1', 'r2'].map((name) => `${name}.${ensure}`));
    });

    it('resourceCanceled raised in r2 lets r0 … r4 all run', async () => {
      const calls: string[] = [];
      const resources = names(5).map((name) =>
        recordingResource(
          name,
          calls,
          name === 'r2'
            ? (ctx) => {
                resourceCanceled.set(ctx);
              }
            : undefined,
        ),
      );
      await process(new ReconcileContext(), obj, resources);
      expect(calls).toEqual(names(5).map((name) => `${name}.${ensure}`));
    });

    it('the first error stops the loop and is thrown unchanged', async () => {
      const calls: string[] = [];
      const resources = names(5).map((name) =>
        recordingResource(name, calls, undefined, name === 'r1' ? 1 : 0),
      );
      await expect(process(new ReconcileContext(), obj, resources)).rejects.toThrow(`r1.${ensure} failed`);
      expect(calls).toEqual(['r0', 'r1'].map((name) => `${name}.${ensure}`));
    });

    it('does not retry a failing resource', async () => {
      const calls: string[] = [];
      await process(new ReconcileContext(), obj, [recordingResource('r0', calls, undefined, 1)]).catch(
        () => undefined,
      );
      expect(calls).toEqual([`r0.${ensure}`]);
    });
  });

  describe('CRUD resources with a full patch', () => {
    const crud = (name: string, calls: string[], during?: RecordingOpsOptions['during']) =>
      new CRUDResource({ ops: recordingOps(name, calls, during === undefined ? {} : { during }) });

    it.each([1, 2, 5])('runs the whole flow of %i resources, concatenated in order', async (n) => {
      const calls: string[] = [];
      await process(
        new ReconcileContext(),
        obj,
        names(n).map((name) => crud(name, calls)),
      );
      expect(calls).toEqual(names(n).flatMap((name) => fullFlow(name, path)));
    });

    it('reconciliationCanceled at r2.GetDesiredState: r0, r1 full, r2 only the two getters', async () => {
      const calls: string[] = [];
      const resources = names(5).map((name) =>
        crud(
          name,
          calls,
          name === 'r2'
            ? {
                GetDesiredState: (ctx) => {
                  reconciliationCanceled.set(ctx);
                },
              }
            : undefined,
        ),
      );
      await expect(process(new ReconcileContext(), obj, resources)).resolves.toBeUndefined();
      expect(calls).toEqual([
        ...fullFlow('r0', path),
        ...fullFlow('r1', path),
        'r2.GetCurrentState',
        'r2.GetDesiredState',
      ]);
    });

    it('reconciliationCanceled at r1.GetCurrentState: r0 full, then only r1.GetCurrentState', async () => {
      const calls: string[] = [];
      const resources = names(5).map((name) =>
        crud(
          name,
          calls,
          name === 'r1'
            ? {
                GetCurrentState: (ctx) => {
                  reconciliationCanceled.set(ctx);
                },
              }
            : undefined,
        ),
      );
      await process(new ReconcileContext(), obj, resources);
      expect(calls).toEqual([...fullFlow('r0', path), 'r1.GetCurrentState']);
    });

    it('reconciliationCanceled at r0.ApplyUpdateChange: r0 completes, later resources do not run', async () => {
      const calls: string[] = [];
      const resources = names(3).map((name) =>
        crud(
          name,
          calls,
          name === 'r0'
            ? {
                ApplyUpdateChange: (ctx) => {
                  reconciliationCanceled.set(ctx);
                },
              }
            : undefined,
        ),
      );
      await process(new ReconcileContext(), obj, resources);
      expect(calls).toEqual(fullFlow('r0', path));
    });

    it('resourceCanceled at r0.ApplyDeleteChange and r2.GetDesiredState: only those resources are cut short', async () => {
      const calls: string[] = [];
      const resources = names(5).map((name) =>
        crud(
          name,
          calls,
          name === 'r0'
            ? {
                ApplyDeleteChange: (ctx) => {
                  resourceCanceled.set(ctx);
                },
              }
            : name === 'r2'
              ? {
                  GetDesiredState: (ctx) => {
                    resourceCanceled.set(ctx);
                  },
                }
              : undefined,
        ),
      );
      await process(new ReconcileContext(), obj, resources);
      expect(calls).toEqual([
        ...fullFlow('r0', path).filter((c) => c !== 'r0.ApplyUpdateChange'),
        ...fullFlow('r1', path),
        'r2.GetCurrentState',
        'r2.GetDesiredState',
        ...fullFlow('r3', path),
        ...fullFlow('r4', path),
      ]);
    });

    it('resourceCanceled at r1.NewPatch: r1 skips its apply steps, r0 and r2 run fully', async () => {
      const calls: string[] = [];
      const patchStep = path === 'update' ? 'NewUpdatePatch' : 'NewDeletePatch';
      const resources = names(3).map((name) =>
        crud(
          name,
          calls,
          name === 'r1'
            ? {
                [patchStep]: (ctx: ReconcileContext) => {
                  resourceCanceled.set(ctx);
                },
              }
            : undefined,
        ),
      );
      await process(new ReconcileContext(), obj, resources);
      expect(calls).toEqual([
        ...fullFlow('r0', path),
        ...fullFlow('r1', path).slice(0, 3),
        ...fullFlow('r2', path),
      ]);
    });
  });

  it('installs a fresh reconciliationCanceled per call: a flag left raised by an earlier call does not stop the next', async () => {
    const ctx = new ReconcileContext();
    reconciliationCanceled.set(ctx);
    const calls: string[] = [];
    await process(ctx, obj, [recordingResource('r0', calls), recordingResource('r1', calls)]);
    expect(calls).toEqual(['r0', 'r1'].map((name) => `${name}.${ensure}`));
  });

  it('throws the abort reason before the next resource when the signal aborts', async () => {
    const controller = new AbortController();
    const calls: string[] = [];
    const resources = [
      recordingResource('r0', calls, () => {
        controller.abort(new Error('stopping'));
      }),
      recordingResource('r1', calls),
    ];
    await expect(
      process(new ReconcileContext({ signal: controller.signal }), obj, resources),
    ).rejects.toThrow('stopping');
    expect(calls).toEqual([`r0.${ensure}`]);
  });

  it('gives each resource a logger with resource=<name> that does not leak into other lines', async () => {
    const { logger, lines } = capturedLogger();
    const ctx = new ReconcileContext({ logger: logger.child({ controller: 'demo' }) });
    const logging = (name: string): Resource<Obj> => ({
      name,
      ensureCreated: async (c) => {
        c.logger.info(`in ${name}`);
      },
      ensureDeleted: async (c) => {
        c.logger.info(`in ${name}`);
      },
    });
    const crudLogging = new CRUDResource({
      ops: {
        ...recordingOps('crud', []),
        getDesiredState: (c: ReconcileContext) => {
          c.logger.info('in crud');
        },
      },
    });
    ctx.logger.info('before');
    await process(ctx, obj, [logging('a'), crudLogging, logging('b')]);
    ctx.logger.info('after');
    const written = (await lines()).filter((l) => l.level === 'info');
    expect(written.map((l) => [l.message, l.controller, l.resource, l.function])).toEqual([
      ['before', 'demo', undefined, undefined],
      ['in a', 'demo', 'a', undefined],
      ['in crud', 'demo', 'crud', 'GetDesiredState'],
      ['in b', 'demo', 'b', undefined],
      ['after', 'demo', undefined, undefined],
    ]);
  });
});
