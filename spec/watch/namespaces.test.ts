// Several namespaces per cache: `namespaces: [...]` gives one list and watch per namespace writing one store;
// a controller with resource.namespaces reconciles objects of those namespaces only, and its owned kinds
// follow. Against the embedded server, or kube-apiserver under make test-real.
import type { KubernetesObject } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidConfigError } from '../../lib/errors/invalid-config-error.js';
import { silentLogger } from '../../lib/observability/logger-silent.js';
import { InformerCache } from '../../lib/watch/informer-cache.js';
import { Watcher } from '../../lib/watch/watcher.js';
import { eventually, startHarness, WIDGET, type Harness } from '../crud/harness.js';
import { FakeBody, watchingCore } from '../engine/engine-support.js';
import { REAL_BACKEND } from '../real/real-backend.js';

const run = Date.now().toString(36);
const [A, B, C] = ['a', 'b', 'c'].map((n) => `rk-ns-${run}-${n}`) as [string, string, string];
const CM = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };

const configMap = (namespace: string, name: string): KubernetesObject =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace },
    data: { v: '1' },
  }) as KubernetesObject;

describe('namespaces', () => {
  let h: Harness;
  const stops: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    h = await startHarness();
    for (const ns of [A, B, C]) {
      await h.client
        .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })
        .catch((e: unknown) => {
          if ((e as { code?: number }).code !== 409) throw e;
        });
    }
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    for (const ns of [A, B, C]) {
      const left = await h.client.list({ ...CM, namespace: ns });
      for (const o of left.items)
        await h.client.delete({ ...CM, namespace: ns, name: o.metadata?.name ?? '' });
      const widgets = await h.client.list({ ...WIDGET, namespace: ns });
      for (const o of widgets.items) {
        const at = { ...WIDGET, namespace: ns, name: o.metadata?.name ?? '' };
        await h.client.patch(at, { metadata: { finalizers: null } }, 'merge').catch(() => undefined);
        await h.client.delete(at).catch(() => undefined);
      }
    }
    await h.close();
  });

  it('one store fed by one watch per namespace, nothing from the others', async () => {
    for (const ns of [A, B, C]) await h.client.create(configMap(ns, 'listed'));
    const informers = new InformerCache({ client: h.client });
    stops.push(() => informers.stop());
    const informer = informers.acquire({ ...CM, namespaces: [A, B] });
    // The same namespaces in another order are the same watch.
    expect(informers.acquire({ ...CM, namespaces: [B, A] })).toBe(informer);
    await informer.waitForSync(undefined, 10_000);
    const mine = () =>
      informer.store
        .keys()
        .filter((k) => k.startsWith('rk-ns-'))
        .sort();
    expect(mine()).toEqual([`${A}/listed`, `${B}/listed`]);
    for (const ns of [A, B, C]) await h.client.create(configMap(ns, 'watched'));
    await h.client.delete({ ...CM, namespace: A, name: 'listed' });
    await eventually(() => mine().length === 3, 10_000, 'the watched ConfigMaps of A and B, A/listed gone');
    expect(mine()).toEqual([`${A}/watched`, `${B}/listed`, `${B}/watched`]);
    expect(informer.source.namespaces).toEqual([A, B]);
  });

  it.skipIf(REAL_BACKEND)('a relist of one namespace (410) leaves the others in the store', async () => {
    for (const ns of [A, B]) await h.client.create(configMap(ns, 'kept'));
    const registry = new Registry();
    const relists = async () =>
      (await registry.getMetricsAsJSON()).find((m) => m.name === 'reconcilekit_watch_relists_total')
        ?.values[0]?.value ?? 0;
    const watcher = new Watcher({
      client: h.client,
      resource: { ...CM, namespaces: [A, B] },
      logger: silentLogger(),
      registry,
      timeoutSeconds: 1,
      backoff: { initialMs: 20, maxMs: 100 },
    });
    stops.push(() => watcher.stop());
    const deleted: string[] = [];
    watcher.onEvent((e) => {
      if (e.type === 'DELETED')
        deleted.push(`${e.object.metadata?.namespace ?? ''}/${e.object.metadata?.name ?? ''}`);
    });
    watcher.start();
    await eventually(() => watcher.synced, 5_000, 'sync');
    h.server.faults.inject({
      verb: 'watch',
      resource: 'configmaps',
      namespace: A,
      expireWatch: true,
      times: 1,
    });
    await h.client.create(configMap(A, 'after'));
    await eventually(() => watcher.store.get(`${A}/after`) !== undefined, 10_000, 'A/after');
    // A's watch ends at its timeout, resumes into the 410, and A is listed again.
    const deadline = Date.now() + 10_000;
    while ((await relists()) < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await relists()).toBe(3);
    expect(deleted).toEqual([]);
    expect(watcher.store.get(`${B}/kept`)).toBeDefined();
    expect(watcher.store.get(`${A}/kept`)).toBeDefined();
  });

  it('a controller over two namespaces reconciles their objects only; owned kinds follow', async () => {
    const body = new FakeBody();
    const core = watchingCore(h.kubeConfig, body, {
      config: {
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, namespaces: [A, B] },
        owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
      },
    });
    stops.push(() => core.stop());
    await core.start();
    const widget = (ns: string) =>
      h.client.create({
        apiVersion: WIDGET.apiVersion,
        kind: WIDGET.kind,
        metadata: { name: 'w', namespace: ns },
        spec: {},
      });
    for (const ns of [A, B, C]) await widget(ns);
    await eventually(
      () => body.of('apply', `${A}/w`).length >= 1 && body.of('apply', `${B}/w`).length >= 1,
      10_000,
      'passes in A and B',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(body.of('apply', `${C}/w`)).toEqual([]);
    // The owned ConfigMaps are watched in A and B too.
    await h.client.create(configMap(B, 'owned-b'));
    await h.client.create(configMap(C, 'owned-c'));
    await eventually(
      () => core.cache('ConfigMap', 'v1')?.get(`${B}/owned-b`) !== undefined,
      10_000,
      'B/owned-b',
    );
    expect(core.cache('ConfigMap', 'v1')?.get(`${C}/owned-c`)).toBeUndefined();
  });

  it('refuses namespace and namespaces together, an empty list and a namespace twice', () => {
    const make = (resource: Record<string, unknown>) => () =>
      watchingCore(h.kubeConfig, new FakeBody(), {
        config: { resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, ...resource } },
      });
    expect(make({ namespace: A, namespaces: [B] })).toThrow(
      /give namespace \(one\) or namespaces \(several\), not both/,
    );
    expect(make({ namespaces: [] })).toThrow(/namespaces must be a non-empty array/);
    expect(make({ namespaces: [A, A] })).toThrow(/names a namespace twice/);
    expect(
      () =>
        new Watcher({
          client: h.client,
          resource: { ...CM, namespace: A, namespaces: [B] },
          logger: silentLogger(),
        }),
    ).toThrow(InvalidConfigError);
  });
});
