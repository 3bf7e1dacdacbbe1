import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../../lib/apiserver/index.js';
import {
  compileLinearRegex,
  isInvalidRegexError,
  linearRegexError,
} from '../../../lib/apiserver/schema/linear-regex.js';
import { api } from '../support/http.js';

describe('compileLinearRegex', () => {
  it('matches unanchored with RE2 semantics', () => {
    expect(compileLinearRegex('b+').test('abbc')).toBe(true);
    expect(compileLinearRegex('^b+$').test('abbc')).toBe(false);
    expect(compileLinearRegex('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$').test('my-name')).toBe(true);
    expect(compileLinearRegex('^\\p{Greek}+$').test('αβγ')).toBe(true);
  });

  it('answers a catastrophic-backtracking pattern on a long input at once', () => {
    // JavaScript's RegExp would take longer than the age of the universe on this input.
    const bomb = compileLinearRegex('^(a+)+$');
    expect(bomb.test(`${'a'.repeat(5000)}b`)).toBe(false);
    expect(bomb.test('a'.repeat(5000))).toBe(true);
  });

  it('rejects what RE2 rejects with a typed error naming the reason', () => {
    for (const pattern of ['(?=a)', '(?!a)', '(a)\\1', '([']) {
      let caught: unknown;
      try {
        compileLinearRegex(pattern);
      } catch (err) {
        caught = err;
      }
      expect(isInvalidRegexError(caught), pattern).toBe(true);
      expect(linearRegexError(pattern)).toMatch(/error parsing regexp/);
    }
    expect(linearRegexError('^a$')).toBeUndefined();
  });
});

function crd(pattern: string, group: string): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `bombs.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'bombs', singular: 'bomb', kind: 'Bomb' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { word: { type: 'string', pattern } } } },
            },
          },
        },
      ],
    },
  };
}

describe('CRD pattern on the embedded server', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(() => server.close());

  it('rejects a CRD whose pattern RE2 cannot compile with 422, as kube does', async () => {
    const res = await api(
      server.url,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd('^(?=x)a$', 'lookahead.example.com'),
    );
    expect(res.status).toBe(422);
    expect(res.body.details.causes[0].field).toMatch(/properties\[word\]\.pattern$/);
    expect(res.body.details.causes[0].message).toMatch(/must be a valid regular expression, but isn't/);
  });

  it('validates a regex-bomb pattern in linear time, so the server keeps answering', async () => {
    const created = await api(
      server.url,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd('^(a+)+$', 'bomb.example.com'),
    );
    expect(created.status).toBe(201);
    const path = '/apis/bomb.example.com/v1/namespaces/default/bombs';
    // 40 characters: a backtracking engine would need ~2^40 steps; the test timeout would catch it.
    const bad = await api(server.url, 'POST', path, {
      apiVersion: 'bomb.example.com/v1',
      kind: 'Bomb',
      metadata: { name: 'bad' },
      spec: { word: `${'a'.repeat(40)}b` },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.details.causes[0].message).toContain("should match '^(a+)+$'");
    const good = await api(server.url, 'POST', path, {
      apiVersion: 'bomb.example.com/v1',
      kind: 'Bomb',
      metadata: { name: 'good' },
      spec: { word: 'a'.repeat(40) },
    });
    expect(good.status).toBe(201);
  });
});
