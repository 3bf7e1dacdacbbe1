// compactObject: what the watcher does to every object that arrives, before it is cached.
import * as v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { INTERNED_STRINGS_MAX, compactObject, internedStrings } from '../../lib/watch/compact-object.js';

/** A ConfigMap as JSON.parse makes it from a response: every string a copy of its own. */
function parsed(i: number): KubernetesObject {
  return JSON.parse(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        creationTimestamp: '2026-11-27T07:45:26Z',
        managedFields: [{ manager: 'op', operation: 'Update', fieldsV1: { 'f:data': {} } }],
        name: `cm-${String(i)}`,
        namespace: 'a-namespace-longer-than-ten',
        ownerReferences: [
          {
            apiVersion: 'bench.reconcilekit.io/v1',
            kind: 'Website',
            name: `w-${String(i)}`,
            uid: `u-${String(i)}`,
          },
        ],
        resourceVersion: String(100 + i),
      },
      data: { k: 'v' },
    }),
  ) as KubernetesObject;
}

describe('compactObject', () => {
  it('drops managedFields and keeps everything else, in order', () => {
    const obj = parsed(1);
    const before = JSON.parse(JSON.stringify(obj)) as KubernetesObject;
    compactObject(obj, true);
    expect(obj.metadata?.managedFields).toBeUndefined();
    expect('managedFields' in (obj.metadata ?? {})).toBe(false);
    const { managedFields: _gone, ...rest } = before.metadata ?? {};
    expect(obj).toStrictEqual({ ...before, metadata: rest });
    expect(Object.keys(obj.metadata ?? {})).toEqual(Object.keys(rest));
  });

  it('keeps managedFields when asked to', () => {
    const obj = parsed(2);
    compactObject(obj, false);
    expect(obj.metadata?.managedFields).toHaveLength(1);
  });

  it('leaves one copy of the strings that repeat across objects: measured on the heap', () => {
    // String identity is not observable from JS; the heap is. 20,000 parsed objects keep three repeated
    // values of ~30 characters each (namespace, creationTimestamp, owner apiVersion: ~40 bytes a copy).
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heapOf = (compact: boolean): number => {
      gc();
      const base = process.memoryUsage().heapUsed;
      const objects = Array.from({ length: 20_000 }, (_, i) => parsed(i));
      if (compact) for (const o of objects) compactObject(o, false);
      gc();
      const used = process.memoryUsage().heapUsed - base;
      expect(objects).toHaveLength(20_000); // alive until measured
      return used;
    };
    const plain = heapOf(false);
    const interned = heapOf(true);
    expect(plain - interned).toBeGreaterThan(20_000 * 3 * 30);
    const size = internedStrings();
    for (let i = 0; i < 100; i++) compactObject(parsed(i), true);
    expect(internedStrings()).toBe(size); // the same values again: nothing new held
  });

  it('is bounded: distinct values never hold more than INTERNED_STRINGS_MAX strings', () => {
    for (let i = 0; i < INTERNED_STRINGS_MAX * 2 + 7; i++) {
      const obj = parsed(i);
      (obj.metadata as Record<string, unknown>).namespace = `ns-${String(i)}`;
      compactObject(obj, true);
      expect(internedStrings()).toBeLessThanOrEqual(INTERNED_STRINGS_MAX);
    }
    const long = parsed(0);
    (long.metadata as Record<string, unknown>).namespace = 'x'.repeat(10_000);
    const size = internedStrings();
    compactObject(long, true);
    expect(internedStrings()).toBe(size); // too long to be interned
    expect(long.metadata?.namespace).toHaveLength(10_000);
  });

  it('takes hostile shapes without throwing', () => {
    for (const odd of [
      { apiVersion: 1, kind: null, metadata: null },
      { metadata: { ownerReferences: 'x', namespace: 5 } },
      { metadata: { ownerReferences: [null, 3, { apiVersion: {} }], managedFields: null } },
      {},
    ]) {
      expect(() => {
        compactObject(odd as unknown as KubernetesObject, true);
      }).not.toThrow();
    }
  });
});
