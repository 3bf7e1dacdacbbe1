import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  AlreadyOwnedError,
  isAlreadyOwned,
  isInvalidConfig,
  setControllerReference,
} from '../../lib/index.js';

const owner: KubernetesObject = {
  apiVersion: 'example.com/v1',
  kind: 'Site',
  metadata: { name: 'blog', namespace: 'web', uid: 'uid-blog' },
};
const ours = {
  apiVersion: 'example.com/v1',
  kind: 'Site',
  name: 'blog',
  uid: 'uid-blog',
  controller: true,
  blockOwnerDeletion: true,
};

describe('setControllerReference', () => {
  it('appends a controller reference with blockOwnerDeletion and keeps the other owner references', () => {
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'uid-x' };
    const child: KubernetesObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'web', ownerReferences: [other] },
    };
    const result = setControllerReference(owner, child);
    expect(result).toBe(child);
    expect(child.metadata!.ownerReferences).toEqual([other, ours]);
  });
  it('updates a reference to the same owner instead of duplicating it', () => {
    const child: KubernetesObject = {
      metadata: {
        name: 'c',
        namespace: 'web',
        ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Site', name: 'blog', uid: 'uid-blog' }],
      },
    };
    setControllerReference(owner, child);
    expect(child.metadata!.ownerReferences).toEqual([ours]);
  });
  it('a different controller is an AlreadyOwnedError naming it', () => {
    const child: KubernetesObject = {
      metadata: {
        name: 'c',
        namespace: 'web',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'uid-s', controller: true }],
      },
    };
    let err: unknown;
    try {
      setControllerReference(owner, child);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AlreadyOwnedError);
    expect(isAlreadyOwned(new Error('wrapped', { cause: err }))).toBe(true);
    expect((err as AlreadyOwnedError).existing).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      name: 's',
      uid: 'uid-s',
    });
    expect((err as Error).message).toMatch(/already controlled by Secret s/);
    expect(child.metadata!.ownerReferences).toHaveLength(1);
  });
  it('rejects an owner without uid and a cross-namespace or cluster-scoped child of a namespaced owner', () => {
    expect(() =>
      setControllerReference({ apiVersion: 'v1', kind: 'Site', metadata: { name: 'x' } }, { metadata: {} }),
    ).toThrow(/uid/);
    const other = (() => {
      try {
        setControllerReference(owner, { metadata: { name: 'c', namespace: 'other' } });
      } catch (e) {
        return e;
      }
    })();
    expect(isInvalidConfig(other)).toBe(true);
    expect(() => setControllerReference(owner, { metadata: { name: 'c' } })).toThrow(
      /cannot own a cluster-scoped object/,
    );
  });
  it('a cluster-scoped owner may own objects in any namespace', () => {
    const node: KubernetesObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1', uid: 'uid-n1' },
    };
    const child: KubernetesObject = setControllerReference(node, {
      metadata: { name: 'c', namespace: 'web' },
    });
    expect(child.metadata!.ownerReferences![0]).toMatchObject({ kind: 'Node', controller: true });
  });
});
