import { describe, expect, it } from 'vitest';
import { Patch, PATCH_PARTS } from '../../../lib/crud/resource/patch.js';

describe('Patch', () => {
  it('starts with no part set', () => {
    const patch = new Patch();
    for (const part of PATCH_PARTS) expect(patch.has(part)).toBe(false);
  });

  it('counts a part by set-ness: null and undefined values are still set', () => {
    const patch = new Patch().setCreateChange(null).setDeleteChange(undefined);
    expect(patch.has('create')).toBe(true);
    expect(patch.has('delete')).toBe(true);
    expect(patch.has('update')).toBe(false);
    expect(patch.get('create')).toBeNull();
  });

  it('stores each part separately and a later set replaces the value', () => {
    const patch = new Patch<string[]>().setCreateChange(['a']).setUpdateChange(['u']).setCreateChange(['b']);
    expect(patch.get('create')).toEqual(['b']);
    expect(patch.get('update')).toEqual(['u']);
    expect(patch.get('delete')).toBeUndefined();
  });

  it('lists parts in apply order create, delete, update', () => {
    expect(PATCH_PARTS).toEqual(['create', 'delete', 'update']);
  });
});
