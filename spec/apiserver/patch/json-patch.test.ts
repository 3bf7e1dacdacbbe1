/* eslint-disable @typescript-eslint/no-unsafe-return -- selectors read untyped results */
import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from '../../../lib/apiserver/patch/json-patch.js';
import { isPatchError, type PatchError } from '../../../lib/apiserver/patch/patch-error.js';

function patchError(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (e) {
    if (isPatchError(e)) return e;
    throw e;
  }
  throw new Error('expected a PatchError');
}

const doc = {
  metadata: { name: 'x', finalizers: ['a.example.com/f', 'b.example.com/f'], 'a/b': 1, 'm~n': 2 },
  spec: { replicas: 1, items: [1, 2, 3] },
};

describe('applyJsonPatch', () => {
  it.each([
    ['add a member', [{ op: 'add', path: '/spec/size', value: 3 }], (d: any) => d.spec.size, 3],
    [
      'add replaces an existing member',
      [{ op: 'add', path: '/spec/replicas', value: 5 }],
      (d: any) => d.spec.replicas,
      5,
    ],
    [
      'add inserts into an array',
      [{ op: 'add', path: '/spec/items/1', value: 9 }],
      (d: any) => d.spec.items,
      [1, 9, 2, 3],
    ],
    [
      'add at the array end index',
      [{ op: 'add', path: '/spec/items/3', value: 4 }],
      (d: any) => d.spec.items,
      [1, 2, 3, 4],
    ],
    [
      'add appends with -',
      [{ op: 'add', path: '/spec/items/-', value: 4 }],
      (d: any) => d.spec.items,
      [1, 2, 3, 4],
    ],
    ['remove a member', [{ op: 'remove', path: '/spec/replicas' }], (d: any) => 'replicas' in d.spec, false],
    [
      'remove an array item',
      [{ op: 'remove', path: '/metadata/finalizers/0' }],
      (d: any) => d.metadata.finalizers,
      ['b.example.com/f'],
    ],
    [
      'replace a member',
      [{ op: 'replace', path: '/spec/replicas', value: 7 }],
      (d: any) => d.spec.replicas,
      7,
    ],
    [
      'replace an array item',
      [{ op: 'replace', path: '/spec/items/2', value: 0 }],
      (d: any) => d.spec.items,
      [1, 2, 0],
    ],
    ['replace the root', [{ op: 'replace', path: '', value: { a: 1 } }], (d: any) => d, { a: 1 }],
    [
      '~1 unescapes to /',
      [{ op: 'replace', path: '/metadata/a~1b', value: 5 }],
      (d: any) => d.metadata['a/b'],
      5,
    ],
    ['~0 unescapes to ~', [{ op: 'remove', path: '/metadata/m~0n' }], (d: any) => 'm~n' in d.metadata, false],
    [
      'move a member',
      [{ op: 'move', from: '/spec/replicas', path: '/spec/count' }],
      (d: any) => d.spec,
      { count: 1, items: [1, 2, 3] },
    ],
    [
      'move within an array',
      [{ op: 'move', from: '/spec/items/0', path: '/spec/items/-' }],
      (d: any) => d.spec.items,
      [2, 3, 1],
    ],
    [
      'copy a subtree',
      [{ op: 'copy', from: '/spec/items', path: '/spec/copy' }],
      (d: any) => d.spec.copy,
      [1, 2, 3],
    ],
    [
      'test then remove a finalizer by index',
      [
        { op: 'test', path: '/metadata/finalizers/1', value: 'b.example.com/f' },
        { op: 'remove', path: '/metadata/finalizers/1' },
      ],
      (d: any) => d.metadata.finalizers,
      ['a.example.com/f'],
    ],
    [
      'test of an absent member against null passes',
      [{ op: 'test', path: '/spec/nothing', value: null }],
      (d: any) => d.spec.replicas,
      1,
    ],
  ])('%s', (_name, ops, select, expected) => {
    expect(select(applyJsonPatch(doc, ops))).toEqual(expected);
  });

  it('never mutates the target or the operations', () => {
    const before = structuredClone(doc);
    const value = { nested: [1] };
    const ops = [{ op: 'add', path: '/spec/obj', value }];
    const result: any = applyJsonPatch(doc, ops);
    result.spec.obj.nested.push(2);
    expect(doc).toEqual(before);
    expect(value).toEqual({ nested: [1] });
  });

  it.each([
    ['an object body', { op: 'add', path: '/a', value: 1 }],
    ['a string body', 'add'],
    ['an operation without op', [{ path: '/a', value: 1 }]],
    ['an operation without path', [{ op: 'add', value: 1 }]],
    ['an unknown op', [{ op: 'frobnicate', path: '/a' }]],
    ['add without value', [{ op: 'add', path: '/a' }]],
    ['move without from', [{ op: 'move', path: '/a' }]],
  ])('rejects %s with 400 BadRequest', (_name, ops) => {
    const error = patchError(() => applyJsonPatch(doc, ops));
    expect([error.code, error.reason]).toEqual([400, 'BadRequest']);
  });

  it.each([
    [
      'a failed test',
      [{ op: 'test', path: '/spec/replicas', value: 2 }],
      'testing value /spec/replicas failed',
    ],
    [
      'a test of a missing path',
      [{ op: 'test', path: '/spec/nothing', value: 2 }],
      'testing value /spec/nothing failed',
    ],
    [
      'remove of a missing member',
      [{ op: 'remove', path: '/spec/nothing' }],
      'doc is missing path: "/spec/nothing"',
    ],
    ['replace of a missing member', [{ op: 'replace', path: '/spec/nothing', value: 1 }], 'missing path'],
    ['add under a missing parent', [{ op: 'add', path: '/status/phase', value: 'x' }], 'missing path'],
    ['add past the array end', [{ op: 'add', path: '/spec/items/5', value: 1 }], 'invalid index'],
    ['remove with a leading-zero index', [{ op: 'remove', path: '/spec/items/01' }], 'missing path'],
    ['a pointer without leading slash', [{ op: 'add', path: 'spec', value: 1 }], 'must start with "/"'],
    ['move into its own child', [{ op: 'move', from: '/spec', path: '/spec/inner' }], 'prefix'],
  ])('rejects %s with 422 Invalid', (_name, ops, message) => {
    const error = patchError(() => applyJsonPatch(doc, ops));
    expect([error.code, error.reason]).toEqual([422, 'Invalid']);
    expect(error.message).toContain(message);
  });

  it('applies nothing when a later operation fails', () => {
    const before = structuredClone(doc);
    expect(() =>
      applyJsonPatch(doc, [
        { op: 'replace', path: '/spec/replicas', value: 9 },
        { op: 'test', path: '/metadata/name', value: 'y' },
      ]),
    ).toThrow(/test failed/);
    expect(doc).toEqual(before);
  });

  it('caps the number of operations', () => {
    const ops = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/spec/replicas', value: 1 }));
    expect(patchError(() => applyJsonPatch(doc, ops)).message).toContain('maximum operations');
  });
});

describe('a __proto__ path', () => {
  it('adds a plain field and never walks into Object.prototype', () => {
    const result: any = applyJsonPatch({ spec: {} }, [
      { op: 'add', path: '/spec/__proto__', value: { polluted: true } },
    ]);
    expect(Object.getPrototypeOf(result.spec)).toBe(Object.prototype);
    expect(JSON.stringify(result)).toBe('{"spec":{"__proto__":{"polluted":true}}}');
    expect(() => applyJsonPatch({}, [{ op: 'add', path: '/__proto__/polluted', value: true }])).toThrow(
      /missing path/,
    );
    expect(({} as any).polluted).toBeUndefined();
  });
});
