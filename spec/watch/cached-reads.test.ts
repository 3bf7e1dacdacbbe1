// CachedReads: reads from shared informers with the client's own writes applied (read-your-own-writes),
// copies handed out, the forms of list a cache can answer. Against the embedded server, or kube-apiserver
// under make test-real (through spec/crud/harness.ts).
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isNotFound } from '../../lib/kube/api-error.js';
import type { ObjectClient } from '../../lib/kube/object-client.js';
import { CachedReads } from '../../lib/watch/cached-reads.js';
import { copyObject } from '../../lib/watch/copy-object.js';
import { InformerCache } from '../../lib/watch/informer-cache.js';
import { labelSelectorMatcher } from '../../lib/watch/label-selector-match.js';
import { OwnWrites, resourceVersionAtLeast } from '../../lib/watch/own-writes.js';
import { startHarness, type Harness } from '../crud/harness.js';

type ConfigMap = KubernetesObject & { data?: Record<string, string> };

const cm = (name: string, data: Record<string, string>, labels?: Record<string, string>): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', ...(labels === undefined ? {} : { labels }) },
  data,
});
const ref = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespace: 'default',
  name,
});
const prefix = `rk-cached-${Date.now().toString(36)}`;

describe('CachedReads on an API server', () => {
  let h: Harness;
  let informers: InformerCache;
  let reads: CachedReads;
  let client: ObjectClient;
  beforeEach(async () => {
    h = await startHarness();
    informers = new InformerCache({ client: h.client });
    reads = new CachedReads({ informers, client: h.client, namespace: 'default' });
    client = h.client.withReader(reads);
  });
  afterEach(async () => {
    await reads.stop();
    await informers.stop();
    for (const name of ['a', 'b', 'c'])
      await h.client.delete(ref(`${prefix}-${name}`)).catch(() => undefined);
    await h.close();
  });

  it('sees its own create, update and delete at once, before the watch delivers them', async () => {
    const name = `${prefix}-a`;
    const miss = await client.get(ref(name)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isNotFound(miss)).toBe(true);
    // A cache miss is an expected answer: its error names the object but carries no stack frames.
    expect((miss as Error).stack).toMatch(/^ApiError: GET ConfigMap .*\(cache\): 404 NotFound/);
    expect((miss as Error).stack).not.toContain('\n    at ');
    expect(reads.startedInformers).toBe(1);

    const created = await client.create(cm(name, { v: '1' }));
    const read = await client.get<ConfigMap>(ref(name));
    expect(read.data).toEqual({ v: '1' });
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);

    // An update on what was read succeeds (no stale-version conflict), and the next read shows it.
    const updated = await client.replace<ConfigMap>({ ...read, data: { v: '2' } });
    const again = await client.get<ConfigMap>(ref(name));
    expect(again.data).toEqual({ v: '2' });
    expect(again.metadata?.resourceVersion).toBe(updated.metadata?.resourceVersion);
    await client.replace<ConfigMap>({ ...again, data: { v: '3' } });

    await client.delete(ref(name));
    await expect(client.get(ref(name))).rejects.toSatisfy(isNotFound);
    expect((await client.list(ref(name))).items.map((o) => o.metadata?.name)).not.toContain(name);
  });

  it('lists its own creates at once, and answers label and name selectors from the cache', async () => {
    await client.list({ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' });
    await client.create(cm(`${prefix}-a`, { v: 'a' }, { app: 'web', tier: 'front' }));
    await client.create(cm(`${prefix}-b`, { v: 'b' }, { app: 'web', tier: 'back' }));
    await client.create(cm(`${prefix}-c`, { v: 'c' }, { app: 'db' }));
    const names = async (opts: { labelSelector?: string; fieldSelector?: string }) =>
      (
        await client.list(
          { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' },
          opts,
        )
      ).items
        .map((o) => o.metadata?.name ?? '')
        .filter((n) => n.startsWith(prefix))
        .sort();
    expect(await names({})).toEqual([`${prefix}-a`, `${prefix}-b`, `${prefix}-c`]);
    expect(await names({ labelSelector: 'app=web' })).toEqual([`${prefix}-a`, `${prefix}-b`]);
    expect(await names({ labelSelector: 'app=web,tier notin (back)' })).toEqual([`${prefix}-a`]);
    expect(await names({ labelSelector: '!tier' })).toEqual([`${prefix}-c`]);
    expect(await names({ fieldSelector: `metadata.name=${prefix}-b` })).toEqual([`${prefix}-b`]);
  });

  it('hands out copies: changing what was read does not change the cache', async () => {
    const name = `${prefix}-a`;
    await client.create(cm(name, { v: '1' }));
    const first = await client.get<ConfigMap>(ref(name));
    first.data!.v = 'changed by the caller';
    first.metadata!.labels = { added: 'locally' };
    const second = await client.get<ConfigMap>(ref(name));
    expect(second.data).toEqual({ v: '1' });
    expect(second.metadata?.labels).toBeUndefined();
  });

  it('reads live on request, and outside the namespace it caches', async () => {
    const name = `${prefix}-a`;
    await h.client.create(cm(name, { v: '1' }));
    // The informer of an unknown kind starts on the first read; { live: true } never touches it.
    expect((await client.get<ConfigMap>(ref(name), { live: true })).data).toEqual({ v: '1' });
    expect(reads.startedInformers).toBe(0);
    await expect(client.get({ ...ref(name), namespace: 'kube-system' })).rejects.toSatisfy(isNotFound);
    expect(reads.startedInformers).toBe(0);
  });
});

describe('OwnWrites', () => {
  const obj = (rv: string, v = rv): KubernetesObject & { data: { v: string } } => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', namespace: 'd', resourceVersion: rv },
    data: { v },
  });

  it('prefers our write until the cache shows that version or a newer one', () => {
    const own = new OwnWrites();
    own.wrote('cm', 'd/x', obj('10'));
    expect(own.resolve('cm', 'd/x', obj('9'))?.metadata?.resourceVersion).toBe('10');
    expect(own.resolve('cm', 'd/x', undefined)?.metadata?.resourceVersion).toBe('10');
    expect(own.resolve('cm', 'd/x', obj('11'))?.metadata?.resourceVersion).toBe('11');
    expect(own.size).toBe(0);
  });

  it("tells a watch event of our own write by its version, once, even after the cache's listener saw it", () => {
    let now = 0;
    const own = new OwnWrites(1_000, () => now);
    own.wrote('cm', 'd/x', obj('10'));
    own.wrote('cm', 'd/x', obj('12'));
    own.seen('cm', 'd/x', obj('12'), false);
    expect(own.size).toBe(0);
    // Another client's version, another object, another kind: not ours.
    expect(own.ownVersion('cm', 'd/x', '11')).toBe(false);
    expect(own.ownVersion('cm', 'd/y', '12')).toBe(false);
    expect(own.ownVersion('secret', 'd/x', '12')).toBe(false);
    expect(own.ownVersion('cm', 'd/x', '12')).toBe(true);
    // Asked once; the older version went with the newer one (a watch delivers them in order).
    expect(own.ownVersion('cm', 'd/x', '12')).toBe(false);
    expect(own.ownVersion('cm', 'd/x', '10')).toBe(false);
    own.wrote('cm', 'd/x', obj('20'));
    now = 1_001;
    expect(own.ownVersion('cm', 'd/x', '20')).toBe(false);
  });

  it('takes an event that comes before our write is answered as ours until the answer shows it was not', () => {
    const own = new OwnWrites();
    const late: string[] = [];
    own.writing('cm', 'd/x');
    own.writing('cm', 'd/x');
    // Both events come before either answer: taken as ours for now.
    expect(own.ownVersion('cm', 'd/x', '10', () => late.push('10'))).toBe(true);
    expect(own.ownVersion('cm', 'd/x', '11', () => late.push('11'))).toBe(true);
    // No callback (nothing to correct later), another object: not ours.
    expect(own.ownVersion('cm', 'd/x', '12')).toBe(false);
    expect(own.ownVersion('cm', 'd/y', '10', () => late.push('y'))).toBe(false);
    own.wrote('cm', 'd/x', obj('10'));
    own.settled('cm', 'd/x');
    // One write still unanswered: '11' may be its.
    expect(late).toEqual([]);
    // The second write failed: '11' was another client's.
    own.settled('cm', 'd/x');
    expect(late).toEqual(['11']);
    // '10' was answered after its event: not remembered to be asked about again.
    expect(own.ownVersion('cm', 'd/x', '10', () => late.push('again'))).toBe(false);
    own.settled('cm', 'd/x');
    expect(late).toEqual(['11']);
  });

  it('forgets a write once the watch delivers it, and a delete once the deletion arrives', () => {
    const own = new OwnWrites();
    own.wrote('cm', 'd/x', obj('10'));
    own.seen('cm', 'd/x', obj('9'), false);
    expect(own.size).toBe(1);
    own.seen('cm', 'd/x', obj('10'), false);
    expect(own.size).toBe(0);
    own.removed('cm', 'd/x', obj('10'));
    expect(own.resolve('cm', 'd/x', obj('10'))).toBeUndefined();
    own.seen('cm', 'd/x', obj('12'), true);
    expect(own.size).toBe(0);
  });

  it('after our delete, shows an object created again under the name', () => {
    const own = new OwnWrites();
    own.removed('cm', 'd/x', obj('10'));
    expect(own.resolve('cm', 'd/x', obj('10'))).toBeUndefined();
    expect(own.resolve('cm', 'd/x', obj('15'))?.metadata?.resourceVersion).toBe('15');
  });

  it('believes the cache again after the time limit', () => {
    let now = 0;
    const own = new OwnWrites(1_000, () => now);
    own.wrote('cm', 'd/x', obj('10'));
    now = 1_001;
    expect(own.resolve('cm', 'd/x', obj('9'))?.metadata?.resourceVersion).toBe('9');
  });

  it('drops expired writes once there are many, keeping a write made again since', () => {
    let now = 0;
    const own = new OwnWrites(1_000, () => now);
    for (let i = 0; i < 1_100; i++) own.wrote('cm', `d/x${i}`, obj('10'));
    now = 500;
    own.wrote('cm', 'd/x0', obj('11')); // written again: newer than the others
    now = 1_200;
    own.wrote('cm', 'd/new', obj('12')); // sweeps the 1,099 expired ones
    expect(own.size).toBe(2);
    expect(own.resolve('cm', 'd/x0', obj('10'))?.metadata?.resourceVersion).toBe('11');
    expect(own.resolve('cm', 'd/new', undefined)?.metadata?.resourceVersion).toBe('12');
  });

  it('compares etcd resourceVersions as numbers and others only for equality', () => {
    expect(resourceVersionAtLeast('10', '9')).toBe(true);
    expect(resourceVersionAtLeast('9', '10')).toBe(false);
    expect(resourceVersionAtLeast('123456789012345678901', '123456789012345678900')).toBe(true);
    expect(resourceVersionAtLeast('abc', 'abc')).toBe(true);
    expect(resourceVersionAtLeast('abd', 'abc')).toBe(false);
  });
});

describe('labelSelectorMatcher', () => {
  it('matches the API server’s selector forms', () => {
    const m = (s: string) => labelSelectorMatcher(s)!;
    const labels = { app: 'web', tier: 'front' };
    expect(m('app=web')(labels)).toBe(true);
    expect(m('app==web,tier=back')(labels)).toBe(false);
    expect(m('app!=db')(labels)).toBe(true);
    expect(m('app!=db')({})).toBe(true);
    expect(m('tier in (front, back)')(labels)).toBe(true);
    expect(m('tier notin (front)')(labels)).toBe(false);
    expect(m('tier notin (front)')({})).toBe(true);
    expect(m('app')(labels)).toBe(true);
    expect(m('!app')(labels)).toBe(false);
    expect(m('')(undefined)).toBe(true);
  });

  it('gives up on what it does not know (the API server then answers)', () => {
    expect(labelSelectorMatcher('app=(web')).toBeUndefined();
    expect(labelSelectorMatcher('replicas>2')).toBeUndefined();
  });
});

describe('copyObject', () => {
  it('copies deeply', () => {
    const source = { a: [1, { b: 'c' }], d: { e: null, f: true } };
    const copy = copyObject(source);
    expect(copy).toEqual(source);
    expect(copy.a[1]).not.toBe(source.a[1]);
    expect(copy.d).not.toBe(source.d);
  });
});
