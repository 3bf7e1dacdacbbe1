import { describe, expect, it } from 'vitest';
import { applyMergePatch } from '../../../lib/apiserver/patch/merge-patch.js';

describe('applyMergePatch', () => {
  // Cases from RFC 7386 appendix A plus the Kubernetes-flavoured ones that matter.
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    [
      { metadata: { labels: { app: 'x', tier: 'web' }, finalizers: ['a', 'b'] } },
      { metadata: { labels: { tier: null, env: 'prod' }, finalizers: ['b'] } },
      { metadata: { labels: { app: 'x', env: 'prod' }, finalizers: ['b'] } },
    ],
  ])('merges %j with %j into %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it('never mutates its inputs and shares no structure with them', () => {
    const target = { spec: { a: { deep: [1] }, b: 1 } };
    const patch = { spec: { c: { deep: [2] } } };
    const result: any = applyMergePatch(target, patch);
    result.spec.a.deep.push(9);
    result.spec.c.deep.push(9);
    expect(target).toEqual({ spec: { a: { deep: [1] }, b: 1 } });
    expect(patch).toEqual({ spec: { c: { deep: [2] } } });
  });
});

describe('a __proto__ key in a body', () => {
  it('stays a plain field and never changes prototypes', () => {
    const patch = JSON.parse('{"spec":{"__proto__":{"polluted":true}}}');
    const result: any = applyMergePatch({ spec: {} }, patch);
    expect(Object.getPrototypeOf(result.spec)).toBe(Object.prototype);
    expect(JSON.stringify(result)).toBe('{"spec":{"__proto__":{"polluted":true}}}');
    expect(({} as any).polluted).toBeUndefined();
  });
});
