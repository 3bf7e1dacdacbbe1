// Metadata-only sources: the client's metadataOnly get/list/watch, an informer whose store holds
// PartialObjectMetadata (apiVersion and kind set back to the watched kind), and a controller owning Secrets
// with metadataOnly whose child changes still reconcile the owner. Against the embedded server, or
// kube-apiserver under make test-real.
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { InformerCache } from '../../lib/watch/informer-cache.js';
import { eventually, ref as widgetRef, useHarness, widget, WIDGET } from '../crud/harness.js';
import { FakeBody, watchingCore } from '../engine/engine-support.js';

const prefix = `rk-md-${Date.now().toString(36)}`;
const SECRET = { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespace: 'default' };
const data = { big: Buffer.from('x'.repeat(4096)).toString('base64') };

const secret = (name: string, extra: Record<string, unknown> = {}): KubernetesObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${prefix}-${name}`, namespace: 'default', labels: { app: prefix }, ...extra },
    type: 'Opaque',
    data,
  }) as KubernetesObject;

/** The object is the kind's metadata and nothing else. */
function expectMetadataOnly(obj: KubernetesObject | undefined, name: string): void {
  expect(obj).toBeDefined();
  expect(Object.keys(obj ?? {}).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
  expect(obj?.apiVersion).toBe('v1');
  expect(obj?.kind).toBe('Secret');
  expect(obj?.metadata?.name).toBe(`${prefix}-${name}`);
  expect(obj?.metadata?.labels?.app).toBe(prefix);
}

describe('metadata-only', () => {
  const t = useHarness();

  it('the client gets and lists PartialObjectMetadata with the kind set back', async () => {
    await t.h.client.create(secret('a'));
    const got = await t.h.client.get({ ...SECRET, name: `${prefix}-a` }, { metadataOnly: true });
    expectMetadataOnly(got, 'a');
    const full = await t.h.client.get<KubernetesObject & { data?: unknown }>({
      ...SECRET,
      name: `${prefix}-a`,
    });
    expect(full.data).toEqual(data);
    const listed = await t.h.client.list(SECRET, { labelSelector: `app=${prefix}`, metadataOnly: true });
    expect(listed.items).toHaveLength(1);
    expectMetadataOnly(listed.items[0], 'a');
    expect(listed.metadata.resourceVersion).not.toBe('');
    const none = await t.h.client.list(SECRET, { labelSelector: 'app=none', metadataOnly: true });
    expect(none.items).toEqual([]);
  });

  it('an informer with metadataOnly holds metadata only, from the list and from watch events', async () => {
    await t.h.client.create(secret('listed'));
    const informers = new InformerCache({ client: t.h.client });
    try {
      const source = { ...SECRET, labelSelector: `app=${prefix}` };
      const meta = informers.acquire({ ...source, metadataOnly: true });
      const full = informers.acquire(source);
      expect(informers.size).toBe(2);
      await meta.waitForSync();
      await full.waitForSync();
      expectMetadataOnly(meta.store.get(`default/${prefix}-listed`), 'listed');
      const updates: KubernetesObject[] = [];
      meta.on('update', (_old, obj) => updates.push(obj));
      await t.h.client.create(secret('watched'));
      await t.h.client.patch(
        { ...SECRET, name: `${prefix}-listed` },
        { metadata: { annotations: { touched: 'yes' } } },
        'merge',
      );
      await eventually(
        () =>
          meta.store.get(`default/${prefix}-watched`) !== undefined &&
          updates.some((o) => o.metadata?.annotations?.touched === 'yes'),
      );
      expectMetadataOnly(meta.store.get(`default/${prefix}-watched`), 'watched');
      expectMetadataOnly(updates.at(-1), 'listed');
      // The full informer of the same kind is another watch and holds whole objects.
      await eventually(() => full.store.get(`default/${prefix}-watched`) !== undefined);
      expect((full.store.get(`default/${prefix}-watched`) as { data?: unknown }).data).toEqual(data);
      await t.h.client.delete({ ...SECRET, name: `${prefix}-watched` });
      await eventually(() => meta.store.get(`default/${prefix}-watched`) === undefined);
    } finally {
      await informers.stop();
    }
  });

  it('a controller owning Secrets with metadataOnly reconciles the owner on a child change', async () => {
    const body = new FakeBody();
    const core = watchingCore(t.h.kubeConfig, body, {
      config: { owns: [{ apiVersion: 'v1', kind: 'Secret', metadataOnly: true }] },
    });
    t.stops.push(() => core.stop());
    await core.start();
    const owner = await t.h.client.create(widget('owner'));
    await eventually(() => body.of('apply', 'default/owner').length >= 1);
    const ownerReferences = [
      { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, name: 'owner', uid: owner.metadata?.uid ?? '' },
    ];
    await t.h.client.create(secret('child', { ownerReferences }));
    await eventually(
      () => core.cache('Secret', 'v1')?.get(`default/${prefix}-child`) !== undefined,
      5_000,
      'the child in the cache',
    );
    expectMetadataOnly(core.cache('Secret', 'v1')?.get(`default/${prefix}-child`), 'child');
    const before = body.of('apply', 'default/owner').length;
    await t.h.client.patch(
      { ...SECRET, name: `${prefix}-child` },
      { metadata: { labels: { app: prefix, changed: 'yes' } } },
      'merge',
    );
    await eventually(
      () => body.of('apply', 'default/owner').length > before,
      5_000,
      'a pass of the owner after its child changed',
    );
    await t.h.client.delete(widgetRef('owner'));
  });

  it('metadataOnly must be a boolean', () => {
    expect(() =>
      watchingCore(t.h.kubeConfig, new FakeBody(), {
        config: { owns: [{ apiVersion: 'v1', kind: 'Secret', metadataOnly: 'yes' as unknown as boolean }] },
      }),
    ).toThrow(/config\.owns\[0\]\.metadataOnly must be true or false/);
  });
});
