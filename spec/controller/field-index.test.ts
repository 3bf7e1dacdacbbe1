// Field indexes on the shared cache (controller-runtime's IndexField + MatchingFields): 10,000 Widgets, 3 of
// which reference the Secret "db"; a `watches` mapper finds those 3 through the index when the Secret
// changes, and the reconcile context's client and cache list by the index.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Controller,
  InformerCache,
  IndexNotFoundError,
  InvalidConfigError,
  ObjectClient,
  Store,
  cacheKey,
  clientKey,
  createLogger,
} from '../../lib/index.js';
import {
  API_VERSION,
  eventually,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from './controller-support.js';

const OBJECTS = 10_000;
const REFERENCING = ['w-00017', 'w-04242', 'w-09999'];
const secretOf = (w: Widget): string | undefined => {
  const name = w.spec?.secretName;
  return typeof name === 'string' ? name : undefined;
};

async function concurrently(n: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < n; i = next++) await fn(i);
    }),
  );
}

describe('field indexes (embedded API server, 10,000 objects)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await concurrently(OBJECTS, 32, async (i) => {
      const name = `w-${String(i).padStart(5, '0')}`;
      const secretName = REFERENCING.includes(name) ? 'db' : `other-${i % 500}`;
      await h.client.create(widget(name, {}, { secretName }));
    });
    await h.client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'default' },
      stringData: { password: 'one' },
    });
  }, 300_000);
  afterAll(async () => {
    await h.close();
  });

  it('a watches mapper finds the 3 Widgets referencing a Secret through the index; the context lists by it', async () => {
    const afterChange: string[] = [];
    let listed: string[] | undefined;
    let cached: string[] | undefined;
    let secretChanged = false;
    const mapped: string[][] = [];
    const controller = new Controller<Widget>({
      name: 'indexed',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      logger: createLogger({ silent: true }),
      workers: 4,
      indexes: [{ apiVersion: API_VERSION, kind: 'Widget', name: 'spec.secretName', fn: secretOf }],
      watches: [
        {
          apiVersion: 'v1',
          kind: 'Secret',
          map: (secret, { cache }) => {
            const found = (
              cache('Widget')?.byIndex('spec.secretName', secret.metadata?.name ?? '') ?? []
            ).map((w) => ({ namespace: w.metadata?.namespace ?? '', name: w.metadata?.name ?? '' }));
            if (secretChanged) mapped.push(found.map((k) => k.name));
            return found;
          },
        },
      ],
      reconciler: async (ctx, req) => {
        if (!secretChanged) return;
        afterChange.push(req.key);
        const list = await ctx
          .get(clientKey)
          ?.list<Widget>(
            { ...WIDGET, namespace: 'default' },
            { matchingFields: { 'spec.secretName': 'db' } },
          );
        listed = list?.items.map((w) => w.metadata?.name ?? '').sort();
        cached = ctx
          .get(cacheKey)?.('Widget')
          ?.byIndex('spec.secretName', 'db', 'default')
          .map((w) => w.metadata?.name ?? '')
          .sort();
      },
    });
    await controller.start();
    // Let the initial list of 10,000 finish before changing the Secret.
    await eventually(() => controller.core.debugState().queueDepth === 0, 120_000, 'the initial list');
    await new Promise((r) => setTimeout(r, 200));
    secretChanged = true;
    await h.client.patch(
      { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespace: 'default', name: 'db' },
      { stringData: { password: 'two' } },
      'merge',
    );
    await eventually(() => afterChange.length >= 3, 10_000, 'the 3 referencing Widgets reconciled');
    await new Promise((r) => setTimeout(r, 300));
    // An update maps the old and the new Secret: each call found exactly the 3.
    expect(mapped.length).toBeGreaterThanOrEqual(1);
    for (const found of mapped) expect(found.sort()).toEqual(REFERENCING);
    expect([...new Set(afterChange)].sort()).toEqual(REFERENCING.map((n) => `default/${n}`));
    expect(listed).toEqual(REFERENCING);
    expect(cached).toEqual(REFERENCING);
    // The index follows changes: a Widget switched to "db" is found, one switched away is not.
    await h.client.patch(
      { ...WIDGET, namespace: 'default', name: 'w-00001' },
      { spec: { secretName: 'db' } },
      'merge',
    );
    await h.client.patch(
      { ...WIDGET, namespace: 'default', name: 'w-00017' },
      { spec: { secretName: 'x' } },
      'merge',
    );
    await eventually(
      () => {
        const names = controller
          .cache('Widget')
          ?.byIndex('spec.secretName', 'db')
          .map((w) => w.metadata?.name);
        return names?.sort().join() === 'w-00001,w-04242,w-09999';
      },
      10_000,
      'the index after the changes',
    );
    await controller.stop();
  }, 240_000);

  it('indexField on a running controller’s cache, and a read by an index nobody registered fails with a typed error', async () => {
    const informers = new InformerCache({ client: new ObjectClient({ kubeConfig: h.kubeConfig }) });
    const informer = informers.acquire<Widget>({ ...WIDGET, namespace: 'default' });
    await informer.waitForSync(undefined, 120_000);
    informers.indexField<Widget>({ apiVersion: API_VERSION, kind: 'Widget' }, 'spec.secretName', secretOf);
    // As the first spec left them: w-00001 switched to "db", w-00017 away from it.
    expect(
      informer.store
        .byIndex('spec.secretName', 'db')
        .map((w) => w.metadata?.name)
        .sort(),
    ).toEqual(['w-00001', 'w-04242', 'w-09999']);
    expect(() => informer.store.byIndex('spec.nope', 'db')).toThrow(IndexNotFoundError);
    expect(() => informer.store.byIndex('spec.nope', 'db')).toThrow(/indexField/);
    // The same function again is fine; another under the taken name is refused.
    informers.indexField<Widget>({ apiVersion: API_VERSION, kind: 'Widget' }, 'spec.secretName', secretOf);
    expect(() => {
      informers.indexField<Widget>({ apiVersion: API_VERSION, kind: 'Widget' }, 'spec.secretName', () => []);
    }).toThrow(InvalidConfigError);
    expect(() => {
      informers.indexField({ apiVersion: API_VERSION, kind: 'Widget' }, '', secretOf);
    }).toThrow(/non-empty string/);
    expect(() => {
      informers.indexField({ apiVersion: API_VERSION, kind: 'Widget' }, 'x', 'nope' as never);
    }).toThrow(/fn must be a function/);
    await informers.stop();
  }, 120_000);
});

describe('Store field index', () => {
  it('keeps values per object up to date, ignores non-strings, survives a throwing function', () => {
    const store = new Store<Widget>();
    store.set(widget('a', {}, { refs: ['s1', 's2', 's1'] }));
    store.set(widget('b', {}, { refs: ['s2', 7] }));
    store.set(widget('c', {}, { refs: 'boom' }));
    store.addIndex('refs', (w) => {
      const refs = w.spec?.refs;
      if (refs === 'boom') throw new Error('bad object');
      return refs as string[];
    });
    expect(store.byIndex('refs', 's2').map((w) => w.metadata?.name)).toEqual(['a', 'b']);
    expect(store.byIndex('refs', 's1').map((w) => w.metadata?.name)).toEqual(['a']);
    store.set(widget('a', {}, { refs: ['s3'] }));
    expect(store.byIndex('refs', 's1')).toEqual([]);
    expect(store.byIndex('refs', 's3').map((w) => w.metadata?.name)).toEqual(['a']);
    store.delete('default/b');
    expect(store.byIndex('refs', 's2')).toEqual([]);
    expect(store.byIndex('refs', 's3', 'other')).toEqual([]);
    expect(store.hasIndex('refs')).toBe(true);
  });
});
