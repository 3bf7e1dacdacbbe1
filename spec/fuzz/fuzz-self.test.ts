// The fuzzer checked on the embedded server alone: a seed gives the same sequence every time, and two
// embedded servers answer a whole sequence identically once normalised (so whatever the fuzzer reports
// against kube-apiserver is a real difference, not randomness the normaliser left behind).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOW_LIST } from './allow-list.js';
import { fuzzSeed } from './fuzz.js';
import { generateRequests } from './generator.js';
import { firstDifference, Normaliser } from './normalise.js';
import type { FuzzRequest } from './request.js';
import type { Divergence } from './run.js';
import { startEmbedded, type EmbeddedBackend } from './servers.js';
import { shrink } from './shrink.js';

describe('the request generator', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    const labels = (seed: number): string[] =>
      generateRequests(seed, 300).map((r) => `${r.method} ${r.path} ${r.label}`);
    expect(labels(7)).toEqual(labels(7));
    expect(labels(7)).not.toEqual(labels(8));
    expect(labels(7)).toHaveLength(300);
  });

  it('covers every kind of request within ten seeds of 300', () => {
    const all = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].flatMap((s) => generateRequests(s, 300));
    const kinds = new Set(all.map((r) => r.label.replace(/ .*/, '')));
    for (const k of [
      'create',
      'get',
      'put',
      'merge-patch',
      'json-patch',
      'strategic-merge-patch',
      'apply',
      'delete',
      'list',
      'add',
      'remove',
      'malformed',
    ])
      expect(kinds, k).toContain(k);
    const text = all.map((r) => `${r.path} ${r.label}`).join('\n');
    for (const part of [
      'dryRun=All',
      'fieldValidation=Strict',
      'force=true',
      '/status',
      '/scale',
      'continue=$CONTINUE',
      'watch mark',
      'generateName',
      'uid precondition',
      'stale resourceVersion',
      '/fuzz.reconcilekit.io/v2/',
      'labelSelector',
      'fieldSelector',
    ])
      expect(text, part).toContain(part);
  });
});

describe('normalising answers', () => {
  it('replaces the namespace, uids, resourceVersions, timestamps and generated names, and keeps the rest', () => {
    const n = new Normaliser('fz-1-abcdef');
    n.noteGenerated('zz-gen-x7k2p');
    const value = n.normalise({
      metadata: {
        name: 'zz-gen-x7k2p',
        namespace: 'fz-1-abcdef',
        uid: '0b7c2a1e-1111-4222-8333-944445555666',
        resourceVersion: '123',
        creationTimestamp: '2025-01-02T03:04:05Z',
        continue: Buffer.from('{"v":"meta.k8s.io/v1","rv":77,"start":"b\\u0000"}').toString('base64'),
      },
      data: { k: 'kept', t: '2025-01-02' },
    });
    expect(value).toEqual({
      metadata: {
        name: '$GEN0',
        namespace: '$NS',
        uid: '<uid0>',
        resourceVersion: '<rv>',
        creationTimestamp: '<time>',
        continue: { v: 'meta.k8s.io/v1', rv: '<rv>', start: 'b\u0000' },
      },
      data: { k: 'kept', t: '2025-01-02' },
    });
  });

  it('names the first differing path, comparing object keys as sets and lists in order', () => {
    expect(firstDifference({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBeUndefined();
    expect(firstDifference({ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 3 }] } })).toBe('a.b[1].c');
    expect(firstDifference({ a: 1 }, { a: 1, b: 2 })).toBe('b');
    expect(firstDifference([1], [1, 2])).toBe('[1]');
  });
});

describe('shrinking', () => {
  it('keeps only the requests the divergence needs', async () => {
    // A divergence appears when request "x" follows both "a" and "b"; everything else is noise.
    const req = (label: string): FuzzRequest => ({ label, method: 'GET', path: `/${label}` });
    const requests = ['n1', 'a', 'n2', 'n3', 'b', 'n4', 'n5', 'x'].map(req);
    const divergenceAt = (seq: readonly FuzzRequest[]): Divergence | undefined => {
      const labels = seq.map((r) => r.label);
      const index = labels.indexOf('x');
      if (index < 0 || !labels.slice(0, index).includes('a') || !labels.slice(0, index).includes('b'))
        return undefined;
      return {
        kind: 'answer',
        index,
        path: 'status',
        embedded: 1,
        real: 2,
        sent: undefined,
        request: seq[index],
      };
    };
    const found = divergenceAt(requests);
    expect(found).toBeDefined();
    if (found === undefined) return;
    const result = await shrink(requests, found, (seq) =>
      Promise.resolve({ divergence: divergenceAt(seq), sent: [] }),
    );
    expect(result.requests.map((r) => r.label)).toEqual(['a', 'b', 'x']);
  });
});

describe('the allow-list', () => {
  it('documents every entry in docs/apiserver.md', () => {
    expect(ALLOW_LIST.length).toBeGreaterThan(0);
    const docs = readFileSync(new URL('../../docs/apiserver.md', import.meta.url), 'utf8');
    for (const entry of ALLOW_LIST) {
      expect(entry.reason.length, entry.id).toBeGreaterThan(20);
      expect(docs, entry.id).toContain(`| ${entry.docsRow} |`);
    }
  });
});

describe('two embedded servers', () => {
  let a: EmbeddedBackend;
  let b: EmbeddedBackend;
  beforeAll(async () => {
    [a, b] = await Promise.all([startEmbedded('embedded-a'), startEmbedded('embedded-b')]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('answer a 300-request sequence identically, watches included', async () => {
    const result = await fuzzSeed([a.backend, b.backend], 11, {
      requests: 300,
      allowList: [],
      names: ['embedded-a', 'embedded-b'],
    });
    expect(result.report).toBeUndefined();
    expect(result.compared).toBe(300);
    expect(result.events).toBeGreaterThan(50);
  }, 180_000);
});
