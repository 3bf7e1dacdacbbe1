import { describe, expect, it } from 'vitest';
import { ownerKeys } from '../../lib/engine/owner-keys.js';

const owner = { apiVersion: 'demo.reconcilekit.io/v1', kind: 'Website' };

function owned(refs: { apiVersion: string; kind: string; name: string }[], namespace = 'team-a') {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', namespace, ownerReferences: refs.map((r) => ({ ...r, uid: `uid-${r.name}` })) },
  };
}

describe('ownerKeys', () => {
  it('maps an owned object to its owner key in the same namespace', () => {
    expect(ownerKeys(owned([{ ...owner, name: 'blog' }]), owner, true)).toEqual(['team-a/blog']);
  });

  it('matches the owner kind in any version of its group, and ignores other kinds and groups', () => {
    const refs = [
      { apiVersion: 'demo.reconcilekit.io/v2', kind: 'Website', name: 'v2' },
      { apiVersion: 'other.io/v1', kind: 'Website', name: 'foreign' },
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'dep' },
    ];
    expect(ownerKeys(owned(refs), owner, true)).toEqual(['team-a/v2']);
  });

  it('uses the bare name for a cluster-scoped owner, and nothing without ownerReferences', () => {
    expect(ownerKeys(owned([{ ...owner, name: 'global' }]), owner, false)).toEqual(['global']);
    const lonely = { metadata: { name: 'lonely' } };
    expect(ownerKeys(lonely, owner, true)).toEqual([]);
  });
});
