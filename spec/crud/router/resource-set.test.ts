import { describe, expect, it } from 'vitest';
import { updateAllowed } from '../../../lib/context/flags.js';
import { defineContextKey } from '../../../lib/context/context-key.js';
import { ReconcileContext } from '../../../lib/context/reconcile-context.js';
import { isInvalidConfig } from '../../../lib/errors/invalid-config-error.js';
import { ResourceSet } from '../../../lib/crud/router/resource-set.js';
import { recordingResource, type Obj } from '../resource/helpers.js';

const r0 = recordingResource('r0', []);
const r1 = recordingResource('r1', []);

describe('ResourceSet', () => {
  it('handles every object when no handles predicate is given, whatever the object', () => {
    const set = new ResourceSet({ resources: [r0] });
    expect(set.handles({ metadata: { name: 'a' } })).toBe(true);
    expect(set.handles(null as unknown as Obj)).toBe(true);
    expect(set.handles('a string' as unknown as Obj)).toBe(true);
  });

  it('asks the handles predicate', () => {
    const set = new ResourceSet<Obj>({ resources: [r0], handles: (o) => o.metadata?.name === 'mine' });
    expect(set.handles({ metadata: { name: 'mine' } })).toBe(true);
    expect(set.handles({ metadata: { name: 'other' } })).toBe(false);
  });

  it('returns the resources in order, as a copy the caller cannot change', () => {
    const list = [r0, r1];
    const set = new ResourceSet({ resources: list });
    list.pop();
    expect(set.resources()).toEqual([r0, r1]);
    expect(Object.isFrozen(set.resources())).toBe(true);
  });

  it('initCtx runs the user hook, which can set flags and values visible to the caller', async () => {
    const region = defineContextKey<string>('region');
    const seen: unknown[] = [];
    const set = new ResourceSet<Obj>({
      resources: [r0],
      initCtx: async (ctx, obj) => {
        seen.push(obj);
        updateAllowed.set(ctx);
        ctx.set(region, 'eu-west');
      },
    });
    const ctx = new ReconcileContext();
    updateAllowed.install(ctx);
    const obj = { metadata: { name: 'x' } };
    await set.initCtx(ctx, obj);
    expect(seen).toEqual([obj]);
    expect(updateAllowed.is(ctx)).toBe(true);
    expect(ctx.get(region)).toBe('eu-west');
  });

  it('initCtx without a hook does nothing and leaves updateAllowed false', async () => {
    const ctx = new ReconcileContext();
    updateAllowed.install(ctx);
    await new ResourceSet({ resources: [r0] }).initCtx(ctx, { metadata: {} });
    expect(updateAllowed.is(ctx)).toBe(false);
  });

  it('initCtx accepts objects that are not Kubernetes objects (null, a string) without error', async () => {
    const set = new ResourceSet({ resources: [r0] });
    await expect(set.initCtx(new ReconcileContext(), null as unknown as Obj)).resolves.toBeUndefined();
    await expect(set.initCtx(new ReconcileContext(), 'x' as unknown as Obj)).resolves.toBeUndefined();
  });

  it('initCtx throws the hook error unchanged', async () => {
    const boom = new Error('no credentials');
    const set = new ResourceSet({
      resources: [r0],
      initCtx: () => {
        throw boom;
      },
    });
    await expect(set.initCtx(new ReconcileContext(), {})).rejects.toBe(boom);
  });

  const bad: [string, unknown, string][] = [
    ['no config', undefined, 'config must be an object with resources'],
    ['no resources', {}, 'config.resources must not be empty: give the resource set at least one resource'],
    [
      'empty resources',
      { resources: [] },
      'config.resources must not be empty: give the resource set at least one resource',
    ],
    [
      'resources not an array',
      { resources: r0 },
      'config.resources must not be empty: give the resource set at least one resource',
    ],
    [
      'a null resource',
      { resources: [r0, null] },
      'config.resources[1] must be a Resource (name, ensureCreated, ensureDeleted)',
    ],
    [
      'a nameless resource',
      { resources: [{ ...r0, name: '' }] },
      'config.resources[0].name must be a non-empty string',
    ],
    [
      'a resource without ensureDeleted',
      { resources: [{ name: 'x', ensureCreated: () => Promise.resolve() }] },
      'config.resources[0] ("x") must have ensureCreated and ensureDeleted functions',
    ],
    [
      'handles not a function',
      { resources: [r0], handles: true },
      'config.handles must be a function (obj) => boolean, or left out to handle everything',
    ],
    [
      'initCtx not a function',
      { resources: [r0], initCtx: 'x' },
      'config.initCtx must be a function (ctx, obj) => void, or left out',
    ],
  ];
  it.each(bad)('%s → InvalidConfigError saying what to fix', (_label, config, message) => {
    let caught: unknown;
    try {
      new ResourceSet(config as never);
    } catch (err) {
      caught = err;
    }
    expect(isInvalidConfig(caught)).toBe(true);
    expect((caught as Error).message).toBe(message);
  });
});
