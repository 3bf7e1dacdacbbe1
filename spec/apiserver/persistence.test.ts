// dataFile: objects, CRD registrations and the resourceVersion counter survive a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startApiServer } from '../../lib/apiserver/index.js';
import { widgetCrd } from './support/fixtures.js';
import { api } from './support/http.js';
import { E2E } from './support/target.js';

const dir = mkdtempSync(join(tmpdir(), 'rk-persist-'));

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(E2E)('persistence', () => {
  it('restores objects, custom resource types and a monotonic resourceVersion from the data file', async () => {
    const dataFile = join(dir, 'state.json');
    const first = await startApiServer({ dataFile });
    await api(first.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd());
    const w = await api(first.url, 'POST', '/apis/example.com/v1/namespaces/default/widgets', {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'kept', finalizers: ['example.com/keep'] },
      spec: { size: 4 },
    });
    await api(first.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'mine' } });
    await api(first.url, 'DELETE', '/apis/example.com/v1/namespaces/default/widgets/kept');
    const lastRv = Number((await api(first.url, 'GET', '/api/v1/namespaces')).body.metadata.resourceVersion);
    await first.close();

    const second = await startApiServer({ dataFile });
    try {
      const restored = await api(second.url, 'GET', '/apis/example.com/v1/namespaces/default/widgets/kept');
      expect(restored.status).toBe(200);
      expect(restored.body.metadata.uid).toBe(w.body.metadata.uid);
      expect(restored.body.metadata.deletionTimestamp).toBeDefined();
      expect((await api(second.url, 'GET', '/api/v1/namespaces/mine')).status).toBe(200);
      const created = await api(second.url, 'POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name: 'after' },
      });
      expect(Number(created.body.metadata.resourceVersion)).toBeGreaterThan(lastRv);
      // A watch from before the restart cannot be resumed (no history): 410 so the client relists.
      const stale = await fetch(
        `${second.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${lastRv}`,
      );
      const line = (await stale.text()).trim();
      expect(JSON.parse(line)).toMatchObject({ type: 'ERROR', object: { code: 410 } });
      // Finishing the held deletion still works after the restart.
      await api(
        second.url,
        'PATCH',
        '/apis/example.com/v1/namespaces/default/widgets/kept',
        { metadata: { finalizers: null } },
        'application/merge-patch+json',
      );
      expect(
        (await api(second.url, 'GET', '/apis/example.com/v1/namespaces/default/widgets/kept')).status,
      ).toBe(404);
    } finally {
      await second.close();
    }
    const third = await startApiServer({ dataFile });
    try {
      expect(
        (await api(third.url, 'GET', '/apis/example.com/v1/namespaces/default/widgets/kept')).status,
      ).toBe(404);
      expect((await api(third.url, 'GET', '/api/v1/namespaces/default/configmaps/after')).status).toBe(200);
    } finally {
      await third.close();
    }
  });
});
