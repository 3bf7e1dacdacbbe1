import { describe, expect, it } from 'vitest';
import { evaluateExpression } from '../../lib/declarative/compile-expression.js';
import {
  DeclarativeSpecError,
  ExpressionError,
  isDeclarativeSpecError,
  isExpressionError,
} from '../../lib/declarative/declarative-spec-error.js';

const doc = {
  metadata: { name: 'w', labels: { app: 'web', tier: 'front' } },
  spec: { list: [1, 2, 3], n: 2.5, s: '42' },
};
const ev = (e: unknown, d: unknown = doc): unknown => evaluateExpression(e, d);

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

describe('evaluateExpression', () => {
  it('D14: the seed-parity examples', () => {
    expect(ev({ '@cond': [{ '@eq': [1, 1] }, 'a', 'b'] })).toBe('a');
    expect(ev({ '@definedOr': ['$.spec.missing', 'x'] })).toBe('x');
    expect(ev({ '@in': ['b', ['a', 'b']] })).toBe(true);
    expect(ev({ '@len': '$.spec.list' })).toBe(3);
    expect(ev({ '@concat': ['a', '$.metadata.name'] })).toBe('aw');
  });

  it('reads JSONPaths, literals, lists and dict literals with path keys', () => {
    expect(ev('$.metadata.labels.app')).toBe('web');
    expect(ev("$['metadata']['labels']['tier']")).toBe('front');
    expect(ev('$.spec.list[-1]')).toBe(3);
    expect(ev('$.spec.list[*]')).toEqual([1, 2, 3]);
    expect(ev('$.')).toBe(doc);
    expect(ev('plain')).toBe('plain');
    expect(ev(['$.metadata.name', 7, null])).toEqual(['w', 7, null]);
    expect(ev({ a: '$.spec.n', '$.b.c': '$.metadata.name', gone: '$.nothing' })).toEqual({
      a: 2.5,
      b: { c: 'w' },
    });
  });

  it('boolean operators', () => {
    expect(ev({ '@and': [true, { '@eq': ['$.metadata.name', 'w'] }] })).toBe(true);
    expect(ev({ '@or': [false, false] })).toBe(false);
    expect(ev({ '@not': { '@exists': '$.spec.missing' } })).toBe(true);
    expect(ev({ '@isnil': '$.spec.missing' })).toBe(true);
    expect(ev({ '@lt': [1, 2] })).toBe(true);
    expect(ev({ '@lte': [2, 2] })).toBe(true);
    expect(ev({ '@gt': ['$.spec.n', 3] })).toBe(false);
    expect(ev({ '@gte': ['b', 'a'] })).toBe(true);
    expect(ev({ '@eq': [{ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }] })).toBe(true);
    expect(ev({ '@selector': [{ matchLabels: { app: 'web' } }, '$.metadata.labels'] })).toBe(true);
    expect(
      ev({
        '@selector': [
          { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] },
          '$.metadata.labels',
        ],
      }),
    ).toBe(false);
    expect(ev({ '@selector': [{ matchLabels: { app: 'web' } }, '$.metadata.annotations'] })).toBe(false);
  });

  it('conversions and arithmetic', () => {
    expect(ev({ '@string': 5 })).toBe('5');
    expect(ev({ '@int': '$.spec.s' })).toBe(42);
    expect(ev({ '@int': '$.spec.n' })).toBe(2);
    expect(ev({ '@float': '2.5' })).toBe(2.5);
    expect(ev({ '@bool': 'true' })).toBe(true);
    expect(ev({ '@sum': '$.spec.list' })).toBe(6);
    expect(ev({ '@abs': -3 })).toBe(3);
    expect(ev({ '@ceil': '$.spec.n' })).toBe(3);
    expect(ev({ '@floor': '$.spec.n' })).toBe(2);
    expect(ev({ '@hash': { a: 1 } })).toMatch(/^[0-9a-z]{6}$/);
    expect(ev({ '@hash': { a: 1, b: 2 } })).toBe(ev({ '@hash': { b: 2, a: 1 } }));
    expect(ev({ '@hash': { a: 1 } })).not.toBe(ev({ '@hash': { a: 2 } }));
    expect(evaluateExpression({ '@now': [] }, doc, { now: () => new Date('2026-01-02T03:04:05.678Z') })).toBe(
      '2026-01-02T03:04:05Z',
    );
  });

  it('list operators see each element as $$', () => {
    expect(ev({ '@map': [{ '@gt': ['$$', 1] }, '$.spec.list'] })).toEqual([false, true, true]);
    expect(ev({ '@filter': [{ '@gt': ['$$', 1] }, '$.spec.list'] })).toEqual([2, 3]);
    expect(ev({ '@any': [{ '@eq': ['$$', 3] }, '$.spec.list'] })).toBe(true);
    expect(ev({ '@all': [{ '@gt': ['$$', 0] }, '$.spec.list'] })).toBe(true);
    expect(ev({ '@none': [{ '@gt': ['$$', 2] }, '$.spec.list'] })).toBe(false);
    expect(ev({ '@none': [{ '@gt': ['$$', 5] }, '$.spec.list'] })).toBe(true);
    expect(ev({ '@fold': [{ '@sum': ['$$.acc', '$$.item'] }, 10, '$.spec.list'] })).toBe(16);
    expect(ev({ '@map': [{ name: '$$.n', doc: '$.metadata.name' }, [{ n: 'x' }]] })).toEqual([
      { name: 'x', doc: 'w' },
    ]);
  });

  it('@list, @dict and @set build values without changing the document', () => {
    expect(ev({ '@list': ['$.metadata.name', 1] })).toEqual(['w', 1]);
    expect(ev({ '@dict': { k: '$.metadata.name' } })).toEqual({ k: 'w' });
    const out = ev({ '@set': ['$.spec', '$.list[0]', 'first'] });
    expect(out).toEqual({ list: ['first', 2, 3], n: 2.5, s: '42' });
    expect(doc.spec.list[0]).toBe(1);
  });

  it('an unknown operator is a located spec error', () => {
    const err = thrown(() => ev({ '@and': [true, { '@frob': 1 }] }));
    expect(err).toBeInstanceOf(DeclarativeSpecError);
    expect(isDeclarativeSpecError(err)).toBe(true);
    expect((err as DeclarativeSpecError).path).toBe("expression['@and'][1]['@frob']");
    expect((err as Error).message).toContain("unknown operator '@frob'");
  });

  it('a malformed JSONPath is a located spec error, before any data is read', () => {
    const err = thrown(() => ev({ '@eq': ['$.spec[', 1] }));
    expect((err as DeclarativeSpecError).path).toBe("expression['@eq'][0]");
    expect((err as Error).message).toMatch(/malformed JSONPath "\$\.spec\[" at character 7/);
    expect((thrown(() => ev('$..x')) as Error).message).toContain("recursive descent '..' is not supported");
  });

  it('a wrong argument count is a spec error', () => {
    expect((thrown(() => ev({ '@cond': [true] })) as Error).message).toContain(
      '@cond takes 2–3 arguments, got 1',
    );
    expect((thrown(() => ev({ '@eq': [1, 2, 3] })) as Error).message).toContain(
      '@eq takes 2 arguments, got 3',
    );
    expect((thrown(() => ev({ '@eq': 1, other: 2 })) as Error).message).toContain('exactly one key');
  });

  it('a type error in the data is a located ExpressionError', () => {
    const err = thrown(() => ev({ '@and': [true, '$.metadata.name'] }));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(isExpressionError(err)).toBe(true);
    expect((err as ExpressionError).path).toBe("expression['@and'][1]");
    expect((err as Error).message).toContain('argument 1 must be a boolean, got "w"');
    expect((thrown(() => ev({ '@lt': ['$.metadata', 1] })) as Error).message).toContain(
      '@lt: argument 0 must be a number, got an object',
    );
    expect((thrown(() => ev({ '@len': 5 })) as Error).message).toContain(
      'must be a list, a string or an object',
    );
    expect((thrown(() => ev({ '@int': 'abc' })) as Error).message).toContain('numeric string');
  });
});
