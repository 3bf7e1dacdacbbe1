import { describe, expect, it } from 'vitest';
import { findDuplicateFields } from '../../../lib/apiserver/schema/duplicate-fields.js';

describe('findDuplicateFields', () => {
  it.each([
    ['{"a":1,"b":2}', []],
    ['{"spec":{"size":1,"size":2}}', ['spec.size']],
    ['{"a":1,"a":2,"a":3}', ['a']],
    ['{"spec":{"items":[{"name":"x","name":"y"},{"name":"z"}]}}', ['spec.items[0].name']],
    ['{"a":{"x":1},"b":{"x":1}}', []],
    [' { "k\\"q" : 1 , "k\\"q" : [ 1 , "}" ] } ', ['k"q']],
    ['{"a":1,"a":', ['a']],
    ['not json', []],
    ['[{"a":1,"a":2}]', ['[0].a']],
    ['{"a":{},"b":[],"a":null}', ['a']],
  ])('%s → %j', (json, expected) => {
    expect(findDuplicateFields(json)).toEqual(expected);
  });
});
