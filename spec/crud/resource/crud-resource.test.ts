import { describe, expect, it } from 'vitest';
import { reconciliationCanceled, resourceCanceled } from '../../../lib/context/flags.js';
import { ReconcileContext } from '../../../lib/context/reconcile-context.js';
import { isExecutionFailed } from '../../../lib/errors/execution-failed-error.js';
import { isInvalidConfig } from '../../../lib/errors/invalid-config-error.js';
import { CRUD_STEPS, type CRUDStep, type MaybePatch } from '../../../lib/crud/resource/crud-resource-ops.js';
import { CRUDResource } from '../../../lib/crud/resource/crud-resource.js';
import { Patch } from '../../../lib/crud/resource/patch.js';
import { capturedLogger, fullFlow, recordingOps, type Obj } from './helpers.js';

const obj: Obj = { metadata: { name: 'demo', namespace: 'default' } };

const patches: Record<string, () => MaybePatch<unknown>> = {
  'nil patch (undefined)': () => undefined,
  'nil patch (null)': () => null,
  'empty patch': () => new Patch(),
  'create only': () => new Patch().setCreateChange('c'),
  'delete only': () => new Patch().setDeleteChange('d'),
  'delete and update': () => new Patch().setDeleteChange('d').setUpdateChange('u'),
  'create, delete and update': () =>
    new Patch().setCreateChange('c').setDeleteChange('d').setUpdateChange('u'),
  'full patch of nulls': () => new Patch().setCreateChange(null).setDeleteChange(null).setUpdateChange(null),
};

const applyStep = {
  create: 'ApplyCreateChange',
  delete: 'ApplyDeleteChange',
  update: 'ApplyUpdateChange',
} as const;

describe('CRUDResource patch dispatch', () => {
  describe.each(['ensureCreated', 'ensureDeleted'] as const)('%s', (method) => {
    it.each(Object.keys(patches))(
      '%s: applies exactly the set parts with their values, in order',
      async (label) => {
        const calls: string[] = [];
        const applied: Partial<Record<CRUDStep, unknown[]>> = {};
        const makePatch = patches[label]!;
        const resource = new CRUDResource({ ops: recordingOps('r', calls, { patch: makePatch, applied }) });
        await resource[method](new ReconcileContext(), obj);

        const expected = makePatch();
        const patchStep = method === 'ensureCreated' ? 'NewUpdatePatch' : 'NewDeletePatch';
        const expectedCalls = ['r.GetCurrentState', 'r.GetDesiredState', `r.${patchStep}`];
        for (const part of ['create', 'delete', 'update'] as const) {
          const step = applyStep[part];
          if (expected?.has(part) === true) {
            expectedCalls.push(`r.${step}`);
            expect(applied[step]).toEqual([expected.get(part)]);
          } else {
            expect(applied[step]).toBeUndefined();
          }
        }
        expect(calls).toEqual(expectedCalls);
      },
    );
  });

  it('passes obj, current and desired state to the steps', async () => {
    const seen: unknown[] = [];
    const resource = new CRUDResource<Obj, string, string>({
      ops: {
        name: 'r',
        getCurrentState: (_ctx, o) => {
          seen.push(['current', o]);
          return 'cur';
        },
        getDesiredState: (_ctx, o) => {
          seen.push(['desired', o]);
          return 'des';
        },
        newUpdatePatch: (_ctx, o, current, desired) => {
          seen.push(['patch', o, current, desired]);
          return new Patch<string>().setUpdateChange(`${current}->${desired}`);
        },
        newDeletePatch: () => undefined,
        applyCreateChange: () => undefined,
        applyDeleteChange: () => undefined,
        applyUpdateChange: (_ctx, o, change) => {
          seen.push(['update', o, change]);
        },
      },
    });
    await resource.ensureCreated(new ReconcileContext(), obj);
    expect(seen).toEqual([
      ['current', obj],
      ['desired', obj],
      ['patch', obj, 'cur', 'des'],
      ['update', obj, 'cur->des'],
    ]);
  });

  it('takes its name from the ops', () => {
    expect(new CRUDResource({ ops: recordingOps('configmaps', []) }).name).toBe('configmaps');
  });
});

describe('CRUDResource checkpoints', () => {
  const steps = [
    'GetCurrentState',
    'GetDesiredState',
    'NewUpdatePatch',
    'ApplyCreateChange',
    'ApplyDeleteChange',
  ] as const;

  describe.each([
    ['reconciliationCanceled', reconciliationCanceled],
    ['resourceCanceled', resourceCanceled],
  ] as const)('%s', (_label, flag) => {
    it.each(steps)(
      'raised in %s: the step completes, nothing after it runs, and the result is success',
      async (at) => {
        const calls: string[] = [];
        const resource = new CRUDResource({
          ops: recordingOps('r', calls, {
            during: {
              [at]: (c: ReconcileContext) => {
                flag.set(c);
              },
            },
          }),
        });
        const ctx = new ReconcileContext();
        flag.install(ctx);
        await expect(resource.ensureCreated(ctx, obj)).resolves.toBeUndefined();
        const full = fullFlow('r', 'update');
        expect(calls).toEqual(full.slice(0, full.indexOf(`r.${at}`) + 1));
        expect(flag.is(ctx)).toBe(true);
      },
    );

    it('raised in ApplyUpdateChange: has no effect inside the resource (no checkpoint follows)', async () => {
      const calls: string[] = [];
      const resource = new CRUDResource({
        ops: recordingOps('r', calls, {
          during: {
            ApplyUpdateChange: (c) => {
              flag.set(c);
            },
          },
        }),
      });
      await resource.ensureDeleted(new ReconcileContext(), obj);
      expect(calls).toEqual(fullFlow('r', 'delete'));
    });

    it('already raised before the flow: nothing runs', async () => {
      const calls: string[] = [];
      const ctx = new ReconcileContext();
      flag.set(ctx);
      await new CRUDResource({ ops: recordingOps('r', calls) }).ensureDeleted(ctx, obj);
      expect(calls).toEqual([]);
    });
  });

  it('checks the checkpoint before an apply step even when its part is absent', async () => {
    const calls: string[] = [];
    const resource = new CRUDResource({
      ops: recordingOps('r', calls, {
        patch: () => new Patch().setCreateChange(1).setUpdateChange(3),
        during: {
          ApplyCreateChange: (c) => {
            resourceCanceled.set(c);
          },
        },
      }),
    });
    await resource.ensureCreated(new ReconcileContext(), obj);
    expect(calls).toEqual([
      'r.GetCurrentState',
      'r.GetDesiredState',
      'r.NewUpdatePatch',
      'r.ApplyCreateChange',
    ]);
  });

  it('throws the abort reason when the signal is aborted, instead of reporting success', async () => {
    const controller = new AbortController();
    const calls: string[] = [];
    const resource = new CRUDResource({
      ops: recordingOps('r', calls, {
        during: {
          GetDesiredState: () => {
            controller.abort(new Error('shutdown'));
          },
        },
      }),
    });
    await expect(
      resource.ensureCreated(new ReconcileContext({ signal: controller.signal }), obj),
    ).rejects.toThrow('shutdown');
    expect(calls).toEqual(['r.GetCurrentState', 'r.GetDesiredState']);
  });
});

describe('CRUDResource errors', () => {
  it.each(CRUD_STEPS.filter((s) => s !== 'NewDeletePatch'))(
    'an error in %s stops the flow and is thrown unchanged',
    async (at) => {
      const calls: string[] = [];
      const resource = new CRUDResource({ ops: recordingOps('r', calls, { failures: { [at]: Infinity } }) });
      await expect(resource.ensureCreated(new ReconcileContext(), obj)).rejects.toThrow(`r.${at} failed`);
      const full = fullFlow('r', 'update');
      expect(calls).toEqual(full.slice(0, full.indexOf(`r.${at}`) + 1));
    },
  );

  it('a patch function returning something that is not a Patch is an ExecutionFailedError naming the fix', async () => {
    const ops = { ...recordingOps('r', []), newUpdatePatch: () => ({ create: 1 }) as unknown as Patch };
    const err: unknown = await new CRUDResource({ ops })
      .ensureCreated(new ReconcileContext(), obj)
      .catch((e: unknown) => e);
    expect(isExecutionFailed(err)).toBe(true);
    expect((err as Error).message).toBe('r: newUpdatePatch must return a Patch, undefined or null');
  });
});

describe('CRUDResource logging', () => {
  it('writes function=<step> on the lines a step logs, and no function key elsewhere', async () => {
    const { logger, lines } = capturedLogger();
    const ops = recordingOps('r', []);
    const logged = {
      ...ops,
      getCurrentState: (ctx: ReconcileContext, o: Obj) => {
        ctx.logger.info('reading');
        return ops.getCurrentState(ctx, o);
      },
      applyUpdateChange: (ctx: ReconcileContext, o: Obj, change: unknown) => {
        ctx.logger.info('updating');
        return ops.applyUpdateChange(ctx, o, change);
      },
    };
    const ctx = new ReconcileContext({ logger });
    await new CRUDResource({ ops: logged }).ensureCreated(ctx.withLogMeta({ resource: 'r' }), obj);
    ctx.logger.info('after');
    const written = await lines();
    expect(written.map((l) => [l.message, l.function, l.resource])).toEqual([
      ['reading', 'GetCurrentState', 'r'],
      ['updating', 'ApplyUpdateChange', 'r'],
      ['after', undefined, undefined],
    ]);
  });

  it('uses the logger option as the base of step loggers when given', async () => {
    const { logger, lines } = capturedLogger();
    const ops = recordingOps('r', []);
    const resource = new CRUDResource({
      logger: logger.child({ component: 'mine' }),
      ops: {
        ...ops,
        getCurrentState: (ctx: ReconcileContext) => {
          ctx.logger.info('x');
        },
      },
    });
    await resource.ensureCreated(new ReconcileContext(), obj);
    expect(await lines()).toEqual([
      expect.objectContaining({ message: 'x', component: 'mine', function: 'GetCurrentState' }),
    ]);
  });

  it('logs a debug line at the checkpoint that stops the flow', async () => {
    const { logger, lines } = capturedLogger();
    const ctx = new ReconcileContext({ logger });
    const resource = new CRUDResource({
      ops: recordingOps('r', [], {
        during: {
          GetCurrentState: (c) => {
            resourceCanceled.set(c);
          },
        },
      }),
    });
    await resource.ensureCreated(ctx, obj);
    expect(await lines()).toEqual([
      expect.objectContaining({
        level: 'debug',
        function: 'GetDesiredState',
        message: expect.stringContaining('resource canceled'),
      }),
    ]);
  });
});

describe('CRUDResource config', () => {
  const valid = () => recordingOps('r', []);
  const cases: [string, unknown, string][] = [
    ['no config', undefined, 'config must be an object with ops'],
    ['no ops', {}, 'config.ops must be an object implementing CRUDResourceOps'],
    ['empty name', { ops: { ...valid(), name: '' } }, 'config.ops.name must be a non-empty string'],
    ['missing name', { ops: { ...valid(), name: undefined } }, 'config.ops.name must be a non-empty string'],
    [
      'missing getDesiredState',
      { ops: { ...valid(), getDesiredState: undefined } },
      'config.ops.getDesiredState must be a function (CRUD resource "r")',
    ],
    [
      'applyUpdateChange not a function',
      { ops: { ...valid(), applyUpdateChange: 'nope' } },
      'config.ops.applyUpdateChange must be a function (CRUD resource "r")',
    ],
  ];
  it.each(cases)('%s → InvalidConfigError saying what to fix', (_label, config, message) => {
    let caught: unknown;
    try {
      new CRUDResource(config as never);
    } catch (err) {
      caught = err;
    }
    expect(isInvalidConfig(caught)).toBe(true);
    expect((caught as Error).message).toBe(message);
  });
});
