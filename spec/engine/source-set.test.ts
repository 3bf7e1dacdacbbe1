// SourceSet (what one controller watches) driven directly on the spec harness's server (embedded; the
// shared kube-apiserver under `make test-real`): events of the reconciled kind in queue keys, owned
// objects to their owner's key, mapped sources through their mapper, predicates, errors of user
// functions reported and the event dropped, caches, and stop.
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { predicates, type Predicate } from '../../lib/engine/predicates.js';
import { SourceSet, type SourceHandlers, type SourceSpec } from '../../lib/engine/source-set.js';
import type { WatchSource } from '../../lib/engine/watch-source.js';
import { createLogger } from '../../lib/observability/logger.js';
import { InformerCache } from '../../lib/watch/informer-cache.js';
import { eventually, ref, useHarness, widget, WIDGET, type Widget } from '../crud/harness.js';

type Seen =
  | { what: 'changed'; key: string; old: string | undefined }
  | { what: 'deleted'; key: string }
  | { what: 'touched'; key: string; via: string; event: string; kind: string }
  | { what: 'sourceError'; source: string; message: string };

function recorder(): { seen: Seen[]; handlers: SourceHandlers<Widget> } {
  const seen: Seen[] = [];
  return {
    seen,
    handlers: {
      changed: (key, _obj, old) => {
        seen.push({ what: 'changed', key, old: old?.metadata?.resourceVersion });
      },
      deleted: (key) => {
        seen.push({ what: 'deleted', key });
      },
      touched: (key, via, event, kind) => {
        seen.push({ what: 'touched', key, via, event, kind });
      },
      sourceError: (source, error) => {
        seen.push({ what: 'sourceError', source, message: (error as Error).message });
      },
    },
  };
}

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const cmRef = (name: string) => ({ ...CONFIG_MAP, plural: 'configmaps', namespace: 'default', name });

function configMap(name: string, extra: Record<string, unknown> = {}): KubernetesObject {
  return { ...CONFIG_MAP, metadata: { name, namespace: 'default', ...extra } };
}

describe('SourceSet', () => {
  const t = useHarness();
  const logger = createLogger({ silent: true });
  const sets: SourceSet<Widget>[] = [];
  const caches: InformerCache[] = [];

  afterEach(async () => {
    for (const set of sets.splice(0)) await set.stop();
    for (const cache of caches.splice(0)) await cache.stop();
  });

  async function start(
    spec: Partial<SourceSpec<Widget>>,
    handlers: SourceHandlers<Widget>,
  ): Promise<{ set: SourceSet<Widget>; informers: InformerCache }> {
    const informers = new InformerCache({ client: t.h.client, logger });
    caches.push(informers);
    const set = new SourceSet<Widget>(logger, informers);
    sets.push(set);
    await set.start(
      t.h.client,
      {
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, namespace: 'default' },
        owns: [],
        watches: [],
        predicates: [],
        ...spec,
      },
      handlers,
      new AbortController().signal,
      10_000,
    );
    return { set, informers };
  }

  it('reports the reconciled kind: add (no old), update (with old) and delete, in namespace/name keys', async () => {
    const { seen, handlers } = recorder();
    const { set } = await start({}, handlers);
    const created = await t.h.client.create(widget('w1'));
    await t.h.client.patch(ref('w1'), { spec: { v: 2 } }, 'merge');
    await t.h.client.delete(ref('w1'));
    await eventually(() => seen.some((s) => s.what === 'deleted'));
    expect(seen).toEqual([
      { what: 'changed', key: 'default/w1', old: undefined },
      { what: 'changed', key: 'default/w1', old: created.metadata?.resourceVersion },
      { what: 'deleted', key: 'default/w1' },
    ]);
    expect(set.primary?.get('default/w1')).toBeUndefined();
  });

  it('lists what exists at start into the cache and reports it as added', async () => {
    await t.h.client.create(widget('before'));
    const { seen, handlers } = recorder();
    const { set } = await start({}, handlers);
    expect(set.primary?.get('default/before')?.metadata?.name).toBe('before');
    expect(set.cache(WIDGET.kind, WIDGET.apiVersion)).toBe(set.primary);
    expect(seen).toContainEqual({ what: 'changed', key: 'default/before', old: undefined });
  });

  it("drops the reconciled kind's events its predicates reject", async () => {
    const { seen, handlers } = recorder();
    await start({ predicates: [predicates.generationChanged<Widget>()] }, handlers);
    await t.h.client.create(widget('w1'));
    await t.h.client.patch(ref('w1'), { metadata: { labels: { only: 'metadata' } } }, 'merge');
    await t.h.client.patch(ref('w1'), { spec: { v: 2 } }, 'merge');
    await eventually(() => seen.length === 2);
    await t.h.client.create(widget('marker'));
    await eventually(() => seen.some((s) => s.what === 'changed' && s.key === 'default/marker'));
    // The add and the spec change passed; the label-only update (same generation) did not.
    expect(seen.filter((s) => s.what === 'changed' && s.key === 'default/w1')).toHaveLength(2);
  });

  it('maps an owned object to its owner key by ownerReference (old and new owner on an update)', async () => {
    const { seen, handlers } = recorder();
    await start({ owns: [{ ...CONFIG_MAP }] }, handlers);
    // Real owners: the garbage collector deletes a child whose owner does not exist.
    const uids = new Map<string, string>();
    for (const name of ['w1', 'w22']) {
      uids.set(name, (await t.h.client.create(widget(name))).metadata?.uid ?? '');
    }
    const owner = (name: string) => ({
      apiVersion: WIDGET.apiVersion,
      kind: WIDGET.kind,
      name,
      uid: uids.get(name) ?? '',
    });
    const touched = () => seen.filter((s) => s.what === 'touched');
    await t.h.client.create(configMap('child', { ownerReferences: [owner('w1')] }));
    await eventually(() => touched().length >= 1);
    await t.h.client.patch(cmRef('child'), { metadata: { ownerReferences: [owner('w22')] } }, 'merge');
    await eventually(() => touched().length >= 3);
    await t.h.client.create(configMap('orphan'));
    await t.h.client.delete(cmRef('child'));
    await eventually(() => seen.some((s) => s.what === 'touched' && s.event === 'delete'));
    expect(touched()).toEqual([
      { what: 'touched', key: 'default/w1', via: 'owned', event: 'add', kind: 'ConfigMap' },
      { what: 'touched', key: 'default/w1', via: 'owned', event: 'update', kind: 'ConfigMap' },
      { what: 'touched', key: 'default/w22', via: 'owned', event: 'update', kind: 'ConfigMap' },
      { what: 'touched', key: 'default/w22', via: 'owned', event: 'delete', kind: 'ConfigMap' },
    ]);
  });

  it('maps a watched source through its mapper, after its own predicates', async () => {
    const { seen, handlers } = recorder();
    const onlyLabelled: Predicate = (e) => e.object.metadata?.labels?.widget !== undefined;
    const source: WatchSource = {
      ...CONFIG_MAP,
      map: (cm) => [{ namespace: 'default', name: cm.metadata?.labels?.widget ?? '' }, 'default/always'],
      predicates: [onlyLabelled],
    };
    const { set } = await start({ watches: [source] }, handlers);
    await t.h.client.create(configMap('ignored'));
    await t.h.client.create(configMap('settings', { labels: { widget: 'w9' } }));
    await eventually(() => seen.length >= 2);
    expect(seen).toEqual([
      { what: 'touched', key: 'default/w9', via: 'mapped', event: 'add', kind: 'ConfigMap' },
      { what: 'touched', key: 'default/always', via: 'mapped', event: 'add', kind: 'ConfigMap' },
    ]);
    expect(set.cache('ConfigMap')?.get('default/settings')?.metadata?.name).toBe('settings');
  });

  it('reports a throwing mapper, a garbage result and a throwing predicate as source errors and drops the event', async () => {
    const { seen, handlers } = recorder();
    const source: WatchSource = {
      ...CONFIG_MAP,
      map: (cm) => {
        const mode = cm.metadata?.labels?.mode;
        if (mode === 'throw') throw new Error('mapper broke');
        if (mode === 'garbage') return 'default/w1' as unknown as string[];
        return ['default/fine'];
      },
    };
    await start(
      {
        watches: [source],
        predicates: [
          () => {
            throw new Error('predicate broke');
          },
        ],
      },
      handlers,
    );
    await t.h.client.create(configMap('a', { labels: { mode: 'throw' } }));
    await t.h.client.create(configMap('b', { labels: { mode: 'garbage' } }));
    await t.h.client.create(widget('w1'));
    await t.h.client.create(configMap('c'));
    await eventually(() => seen.some((s) => s.what === 'touched'));
    const errors = seen.filter((s): s is Extract<Seen, { what: 'sourceError' }> => s.what === 'sourceError');
    expect(errors.map((e) => e.message)).toEqual([
      'mapper broke',
      expect.stringContaining('map() must return an array of keys'),
      'predicate broke',
    ]);
    expect(errors.map((e) => e.source)).toEqual([
      expect.stringContaining('ConfigMap'),
      expect.stringContaining('ConfigMap'),
      'primary',
    ]);
    expect(seen.filter((s) => s.what !== 'sourceError')).toEqual([
      { what: 'touched', key: 'default/fine', via: 'mapped', event: 'add', kind: 'ConfigMap' },
    ]);
  });

  it('shares one informer per kind through the InformerCache, and reports nothing after stop', async () => {
    const first = recorder();
    const second = recorder();
    const { set, informers } = await start({}, first.handlers);
    const other = new SourceSet<Widget>(logger, informers);
    sets.push(other);
    await other.start(
      t.h.client,
      {
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, namespace: 'default' },
        owns: [],
        watches: [],
        predicates: [],
      },
      second.handlers,
      new AbortController().signal,
      10_000,
    );
    expect(other.primary).toBe(set.primary);
    await set.stop();
    await t.h.client.create(widget('after-stop'));
    await eventually(() => second.seen.length === 1);
    expect(first.seen).toEqual([]);
  });
});
