import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { Store, objectKey, splitObjectKey } from '../../lib/watch/store.js';

function obj(name: string, namespace?: string, owners: string[] = []): KubernetesObject {
  const metadata: Record<string, unknown> = { name, resourceVersion: '1' };
  if (namespace !== undefined) metadata.namespace = namespace;
  if (owners.length > 0) {
    metadata.ownerReferences = owners.map((uid) => ({ apiVersion: 'v1', kind: 'X', name: uid, uid }));
  }
  const o: Record<string, unknown> = { apiVersion: 'v1', kind: 'ConfigMap', metadata };
  return o;
}

describe('objectKey', () => {
  it('is namespace/name for namespaced objects and name for cluster-scoped ones', () => {
    expect(objectKey(obj('a', 'ns'))).toBe('ns/a');
    expect(objectKey(obj('node-1'))).toBe('node-1');
    expect(splitObjectKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(splitObjectKey('node-1')).toEqual({ name: 'node-1' });
  });
});

describe('Store', () => {
  it('keeps the latest object per key and lists by namespace', () => {
    const s = new Store();
    expect(s.set(obj('a', 'x'))).toBeUndefined();
    const first = s.get('x/a');
    const second = obj('a', 'x');
    expect(s.set(second)).toBe(first);
    s.set(obj('b', 'y'));
    expect(s.size).toBe(2);
    expect(s.get('x/a')).toBe(second);
    expect(s.getByName('b', 'y')).toBeDefined();
    expect(s.list('y').map(objectKey)).toEqual(['y/b']);
    expect(s.keys().sort()).toEqual(['x/a', 'y/b']);
    expect(s.delete('x/a')).toBe(second);
    expect(s.delete('x/a')).toBeUndefined();
    expect(s.size).toBe(1);
  });

  it('indexes objects by owner uid and keeps the index right across updates and deletes', () => {
    const s = new Store();
    s.set(obj('c1', 'ns', ['owner-1']));
    s.set(obj('c2', 'ns', ['owner-1', 'owner-2']));
    expect(s.byOwnerUid('owner-1').map(objectKey).sort()).toEqual(['ns/c1', 'ns/c2']);
    s.set(obj('c1', 'ns', ['owner-2'])); // re-parented
    expect(s.byOwnerUid('owner-1').map(objectKey)).toEqual(['ns/c2']);
    expect(s.byOwnerUid('owner-2').map(objectKey).sort()).toEqual(['ns/c1', 'ns/c2']);
    s.delete('ns/c2');
    expect(s.byOwnerUid('owner-1')).toEqual([]);
    expect(s.byOwnerUid('nobody')).toEqual([]);
  });

  it('keeps the owner index right as an owner goes from one dependent to several and back to none', () => {
    const s = new Store();
    s.set(obj('c1', 'ns', ['o']));
    s.set(obj('c1', 'ns', ['o'])); // the same dependent again (an update): still one
    expect(s.byOwnerUid('o').map(objectKey)).toEqual(['ns/c1']);
    s.set(obj('c2', 'ns', ['o']));
    s.set(obj('c3', 'ns', ['o', 'o'])); // a duplicated reference counts once
    expect(s.byOwnerUid('o').map(objectKey).sort()).toEqual(['ns/c1', 'ns/c2', 'ns/c3']);
    s.delete('ns/c3');
    s.delete('ns/c1');
    expect(s.byOwnerUid('o').map(objectKey)).toEqual(['ns/c2']);
    s.set(obj('c2', 'ns', [])); // its reference removed
    expect(s.byOwnerUid('o')).toEqual([]);
    s.set(obj('c4', 'ns', ['o']));
    s.set(obj('c5', 'ns', ['p']));
    expect(s.byOwnerUid('o').map(objectKey)).toEqual(['ns/c4']);
    s.delete('ns/c4');
    expect(s.byOwnerUid('o')).toEqual([]);
    expect(s.byOwnerUid('p').map(objectKey)).toEqual(['ns/c5']);
  });
});
