import { describe, expect, it } from 'vitest';
import {
  addFinalizerPatch,
  finalizerName,
  hasFinalizer,
  removeFinalizerPatch,
} from '../../lib/engine/finalizer-patch.js';

const F = finalizerName('website');

describe('finalizer patches', () => {
  it('names the finalizer after the framework', () => {
    expect(F).toBe('reconcilekit.io/website');
  });

  it('creates the list when the object has no finalizers, guarded by resourceVersion', () => {
    expect(addFinalizerPatch({ metadata: { resourceVersion: '7' } }, F)).toEqual({
      action: 'patch',
      patch: [
        { op: 'test', path: '/metadata/resourceVersion', value: '7' },
        { op: 'add', path: '/metadata/finalizers', value: [F] },
      ],
    });
  });

  it('appends to foreign finalizers without touching them', () => {
    expect(addFinalizerPatch({ metadata: { resourceVersion: '8', finalizers: ['x.io/keep'] } }, F)).toEqual({
      action: 'patch',
      patch: [
        { op: 'test', path: '/metadata/resourceVersion', value: '8' },
        { op: 'add', path: '/metadata/finalizers/-', value: F },
      ],
    });
  });

  it('continues without a patch when ours is present', () => {
    expect(addFinalizerPatch({ metadata: { finalizers: ['x.io/keep', F] } }, F)).toEqual({
      action: 'present',
    });
  });

  it('never adds to an object being deleted', () => {
    expect(addFinalizerPatch({ metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } }, F)).toEqual({
      action: 'stop',
    });
  });

  it('removes only ours, keeping the others in order', () => {
    const obj = { metadata: { resourceVersion: '9', finalizers: ['a.io/x', F, 'b.io/y'] } };
    expect(hasFinalizer(obj, F)).toBe(true);
    expect(removeFinalizerPatch(obj, F)).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '9' },
      { op: 'replace', path: '/metadata/finalizers', value: ['a.io/x', 'b.io/y'] },
    ]);
  });

  it('has nothing to remove when ours is absent', () => {
    expect(removeFinalizerPatch({ metadata: { finalizers: ['a.io/x'] } }, F)).toBeUndefined();
    expect(hasFinalizer({}, F)).toBe(false);
  });
});
