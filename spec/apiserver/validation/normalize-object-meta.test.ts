import { describe, expect, it } from 'vitest';
import { normalizeObjectMeta } from '../../../lib/apiserver/validation/normalize-object-meta.js';

describe('normalizeObjectMeta', () => {
  it('drops empty omitempty metadata fields and keeps the rest', () => {
    const obj = {
      metadata: {
        name: 'x',
        generateName: '',
        labels: {},
        annotations: {},
        finalizers: [],
        ownerReferences: [],
        managedFields: [],
      },
      spec: { empty: {} },
    };
    expect(normalizeObjectMeta(obj)).toEqual({ metadata: { name: 'x' }, spec: { empty: {} } });
  });

  it('keeps non-empty fields and tolerates objects without metadata', () => {
    const obj = { metadata: { name: 'x', labels: { a: '' }, finalizers: ['a.io/x'] } };
    expect(normalizeObjectMeta(structuredClone(obj))).toEqual(obj);
    expect(normalizeObjectMeta({ kind: 'X' })).toEqual({ kind: 'X' });
  });
});
