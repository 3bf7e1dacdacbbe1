// The informer cache drops metadata.managedFields as objects arrive (from the list and from watch events)
// unless keepManagedFields is set. Against the embedded server, or kube-apiserver under make test-real.
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InformerCache } from '../../lib/watch/informer-cache.js';
import type { Informer } from '../../lib/watch/informer.js';
import { startHarness, type Harness } from '../crud/harness.js';

const prefix = `rk-mf-${Date.now().toString(36)}`;
const ref = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespace: 'default',
  name,
});
const source = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' };

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('managedFields in the informer cache', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    for (const name of ['listed', 'watched'])
      await h.client.delete(ref(`${prefix}-${name}`)).catch(() => undefined);
    await h.close();
  });

  const run = async (keepManagedFields: boolean) => {
    const create = (name: string) =>
      h.client.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${prefix}-${name}`, namespace: 'default' },
        data: { v: '1' },
      });
    await create('listed');
    const informers = new InformerCache({ client: h.client, keepManagedFields });
    const informer: Informer = informers.acquire(source);
    try {
      await informer.waitForSync();
      await create('watched');
      await h.client.patch(ref(`${prefix}-listed`), { data: { v: '2' } }, 'merge');
      const cached = (name: string): KubernetesObject | undefined =>
        informer.store.get(`default/${prefix}-${name}`);
      await until(
        () =>
          cached('watched') !== undefined && (cached('listed') as { data?: { v?: string } }).data?.v === '2',
      );
      // The server does write them: a live read has them.
      const live = await h.client.get(ref(`${prefix}-listed`));
      expect(live.metadata?.managedFields?.length).toBeGreaterThan(0);
      return { listed: cached('listed'), watched: cached('watched') };
    } finally {
      await informers.stop();
    }
  };

  it('are dropped by default, from listed objects and from watch events', async () => {
    const { listed, watched } = await run(false);
    expect(listed?.metadata?.managedFields).toBeUndefined();
    expect(watched?.metadata?.managedFields).toBeUndefined();
    expect(listed?.metadata?.name).toBe(`${prefix}-listed`);
  });

  it('are kept with keepManagedFields: true', async () => {
    const { listed, watched } = await run(true);
    expect(listed?.metadata?.managedFields?.length).toBeGreaterThan(0);
    expect(watched?.metadata?.managedFields?.length).toBeGreaterThan(0);
  });
});
