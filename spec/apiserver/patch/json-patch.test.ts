/* eslint-disable @typescript-eslint/no-unsafe-return -- selectors read untyped results */
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, decodeJsonPatch } from '../../../lib/apiserver/patch/json-patch.js';
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
    [
      'a body that is not a list',
      { op: 'add', path: '/a', value: 1 },
      'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
    ],
    [
      'a string body',
      'add',
      'error decoding patch: json: cannot unmarshal string into Go value of type []handlers.jsonPatchOp',
    ],
    [
      'an operation that is not an object',
      [1],
      'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp',
    ],
    [
      'an op that is not a string',
      [{ op: 5, path: '/a' }],
      'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string',
    ],
  ])("rejects %s with 400 BadRequest and kube's text", (_name, body, message) => {
    const error = patchError(() => decodeJsonPatch(body, true));
    expect([error.code, error.reason, error.message]).toEqual([400, 'BadRequest', message]);
  });

  it('names the json-patch library type when fieldValidation=Ignore skips the strict decoding', () => {
    const error = patchError(() => decodeJsonPatch({ op: 'add' }, false));
    expect(error.message).toBe('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  });

  it('reports members other than op, path, from and value', () => {
    expect(decodeJsonPatch([{ op: 'add', path: '/a', value: 1, x: 2 }], true).unknownFields).toEqual([
      '[0].x',
    ]);
  });

  it.each([
    ['a failed test', [{ op: 'test', path: '/spec/replicas', value: 2 }]],
    ['a test of a missing member', [{ op: 'test', path: '/spec/nothing', value: 2 }]],
    ['remove of a missing member', [{ op: 'remove', path: '/spec/nothing' }]],
    ['replace of a list item past the end', [{ op: 'replace', path: '/spec/items/3', value: 1 }]],
    ['add under a missing parent', [{ op: 'add', path: '/status/phase', value: 'x' }]],
    ['add past the array end', [{ op: 'add', path: '/spec/items/5', value: 1 }]],
    ['a pointer without a slash', [{ op: 'add', path: 'spec', value: 1 }]],
    ['an operation without op', [{ path: '/a', value: 1 }]],
    ['an unknown op', [{ op: 'frobnicate', path: '/a' }]],
    ['move without from', [{ op: 'move', path: '/a' }]],
  ])("rejects %s with 422 Invalid and kube's generic text", (_name, ops) => {
    const error = patchError(() => applyJsonPatch(doc, ops));
    expect([error.code, error.reason, error.message]).toEqual([
      422,
      'Invalid',
      'the server rejected our request due to an error in our request',
    ]);
  });

  it.each([
    [
      'replace of an absent member sets it',
      [{ op: 'replace', path: '/spec/nothing', value: 1 }],
      (d: any) => d.spec.nothing,
      1,
    ],
    ['add without a value adds null', [{ op: 'add', path: '/spec/size' }], (d: any) => d.spec.size, null],
    [
      'a negative index counts from the end',
      [{ op: 'remove', path: '/spec/items/-1' }],
      (d: any) => d.spec.items,
      [1, 2],
    ],
    [
      'a leading-zero index is a number',
      [{ op: 'remove', path: '/spec/items/01' }],
      (d: any) => d.spec.items,
      [1, 3],
    ],
  ])('follows the json-patch library kube uses: %s', (_name, ops, select, expected) => {
    expect(select(applyJsonPatch(doc, ops))).toEqual(expected);
  });

  it('applies nothing when a later operation fails', () => {
    const before = structuredClone(doc);
    expect(() =>
      applyJsonPatch(doc, [
        { op: 'replace', path: '/spec/replicas', value: 9 },
        { op: 'test', path: '/metadata/name', value: 'y' },
      ]),
    ).toThrow(/rejected our request/);
    expect(doc).toEqual(before);
  });

  it('caps the number of operations', () => {
    const ops = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/spec/replicas', value: 1 }));
    expect(patchError(() => decodeJsonPatch(ops, true)).message).toContain('maximum operations');
  });

  it('caps what copy operations add', () => {
    const big = { spec: { blob: 'x'.repeat(1024 * 1024) } };
    const ops = Array.from({ length: 4 }, (_, i) => ({
      op: 'copy',
      from: '/spec/blob',
      path: `/spec/c${String(i)}`,
    }));
    expect(patchError(() => applyJsonPatch(big, ops)).code).toBe(422);
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
      /rejected our request/,
    );
    expect(({} as any).polluted).toBeUndefined();
  });
});
