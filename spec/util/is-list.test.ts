import { describe, expect, it } from 'vitest';
import { isList } from '../../lib/util/is-list.js';

describe('isList', () => {
  it.each([
    [[], true],
    [[1], true],
    [Object.freeze([1]), true],
    [{ length: 0 }, false],
    ['abc', false],
    [undefined, false],
  ])('%j → %s', (value, expected) => {
    expect(isList(value)).toBe(expected);
  });
});
