import { describe, expect, it } from 'vitest';
import { cloneJson } from '../../../lib/apiserver/patch/json-value.js';

describe('cloneJson', () => {
  it('copies every level: changing the copy leaves the original as it was', () => {
    const original = { metadata: { labels: { a: '1' } }, items: [{ n: 1 }, [2, 3]], s: 'x', n: 0, b: false };
    const copy = cloneJson(original);
    expect(copy).toEqual(original);
    copy.metadata.labels.a = '2';
    (copy.items[0] as { n: number }).n = 9;
    (copy.items[1] as number[]).push(4);
    expect(original).toEqual({
      metadata: { labels: { a: '1' } },
      items: [{ n: 1 }, [2, 3]],
      s: 'x',
      n: 0,
      b: false,
    });
  });

  it('keeps a parsed "__proto__" member as an own field and does not change the prototype', () => {
    const parsed = JSON.parse('{"spec":{"__proto__":{"polluted":true},"x":1}}') as {
      spec: Record<string, unknown>;
    };
    const copy = cloneJson(parsed);
    expect(Object.getPrototypeOf(copy.spec)).toBe(Object.prototype);
    expect(Object.keys(copy.spec)).toEqual(['__proto__', 'x']);
    expect((copy.spec as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe('{"spec":{"__proto__":{"polluted":true},"x":1}}');
  });

  it('keeps keys whose value is undefined, and copies what is not plain JSON with structuredClone', () => {
    const at = new Date(0);
    const copy = cloneJson({ gone: undefined, at });
    expect(Object.keys(copy)).toEqual(['gone', 'at']);
    expect(copy.at).toBeInstanceOf(Date);
    expect(copy.at).not.toBe(at);
    expect(copy.at.getTime()).toBe(0);
    const nothing: unknown = undefined;
    expect(cloneJson(nothing)).toBeUndefined();
  });
});
