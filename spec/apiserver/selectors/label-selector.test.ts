import { describe, expect, it } from 'vitest';
import { parseLabelSelector } from '../../../lib/apiserver/selectors/label-selector.js';
import { isSelectorError } from '../../../lib/apiserver/selectors/selector-error.js';

const web = { app: 'web', tier: 'frontend', release: '3' };
const db = { app: 'db', tier: 'backend' };
const bare = {};

describe('parseLabelSelector', () => {
  it.each([
    ['', [true, true, true]],
    ['   ', [true, true, true]],
    ['app=web', [true, false, false]],
    ['app==web', [true, false, false]],
    ['app!=web', [false, true, true]],
    ['app in (web,db)', [true, true, false]],
    ['app in ( web , db )', [true, true, false]],
    ['app notin (web)', [false, true, true]],
    ['release', [true, false, false]],
    ['!release', [false, true, true]],
    ['app=web,tier=frontend', [true, false, false]],
    ['app=db,tier=frontend', [false, false, false]],
    ['app,!release', [false, true, false]],
    ['tier in (backend), app notin (web)', [false, true, false]],
    ['release>2', [true, false, false]],
    ['release<2', [false, false, false]],
    ['app=', [false, false, false]],
    ['app!=', [true, true, true]],
    ['app in ()', [false, false, false]],
    ['app.kubernetes.io/name', [false, false, false]],
  ])('%j selects %j of [web, db, bare]', (text, expected) => {
    const selector = parseLabelSelector(text);
    expect([web, db, bare].map((labels) => selector.matches(labels))).toEqual(expected);
  });

  it('matches undefined labels like empty labels', () => {
    expect(parseLabelSelector('!a').matches(undefined)).toBe(true);
    expect(parseLabelSelector('a').matches(undefined)).toBe(false);
  });

  it.each([
    ['', true],
    ['a', false],
  ])('%j has empty=%s', (text, empty) => {
    expect(parseLabelSelector(text).empty).toBe(empty);
  });

  it('accepts a prefixed key and an empty value', () => {
    const selector = parseLabelSelector('example.com/role=,x.io/y in (a_b.c-d)');
    expect(selector.matches({ 'example.com/role': '', 'x.io/y': 'a_b.c-d' })).toBe(true);
  });

  it.each([
    ['a=b,', 'expected'],
    [',a=b', 'expected'],
    ['a=b c', "found 'c'"],
    ['a in b', "expected: '('"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in', "unable to parse requirement: found '' expected: '('"],
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['a notin b,c)', "expected: '('"],
    ['=b', 'identifier'],
    ['a=(b)', 'identifier'],
    ['a b', "found 'b'"],
    ['!a=b', "found '='"],
    ['a>b', `values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['-bad=x', 'unable to parse requirement: <nil>: Invalid value: "-bad"'],
    ['a=-bad', 'values[0][a]: Invalid value: "-bad"'],
    ['a=-bad', 'Invalid value: "-bad"'],
    ['a/b/c=x', '<nil>: Invalid value'],
    [`a=${'x'.repeat(64)}`, 'no more than 63'],
    [`${'k'.repeat(64)}=x`, 'no more than 63'],
    ['a=b=c', "found '='"],
  ])('rejects %j', (text, message) => {
    try {
      parseLabelSelector(text);
      expect.fail('expected a SelectorError');
    } catch (e) {
      expect(isSelectorError(e)).toBe(true);
      expect((e as Error).message).toContain(message);
    }
  });
});
