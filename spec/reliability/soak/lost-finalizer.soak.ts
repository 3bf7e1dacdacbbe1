// Soak: 60 objects whose finalizer removal the server acknowledges and then "loses" (a proxy answers the
// first removal of each with the unchanged object). Issue 14 found 13 of 60 stuck Terminating after 60 s
// with readiness true; the engine must remove its finalizer again and run each cleanup exactly once.
import type { Server } from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildKubeconfig } from '../../../lib/apiserver/index.js';
import { Framework } from '../../../lib/crud/framework.js';
import { createLogger } from '../../../lib/observability/logger.js';
import { ResourceSet } from '../../../lib/crud/router/resource-set.js';
import { forgetfulProxy } from '../../crud/forgetful-proxy.js';
import {
  eventually,
  RecordingResource,
  ref,
  startHarness,
  widget,
  WIDGET,
  type Widget,
} from '../../crud/harness.js';
import { recordFigures } from '../support/figures.js';

const OBJECTS = 60;

describe('soak: lost finalizer removals', () => {
  it(`${OBJECTS} objects, every first finalizer removal lost: none stuck, every cleanup once`, async () => {
    const h = await startHarness();
    let proxy: Server | undefined;
    let fw: Framework<Widget> | undefined;
    try {
      const forgetful = await forgetfulProxy(h.server.url, { perObject: true });
      proxy = forgetful.server;
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromString(buildKubeconfig(forgetful.url));
      const recorder = new RecordingResource();
      fw = new Framework<Widget>({
        name: 'forgetful-soak',
        kubeConfig,
        resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
        resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
        logger: createLogger({ silent: true }),
        healthServer: false,
        workers: 4,
      });
      await fw.start();
      const names = Array.from({ length: OBJECTS }, (_, i) => `lost-${String(i)}`);
      for (const name of names) await h.client.create(widget(name));
      await eventually(() => names.every((n) => recorder.count('create', n) >= 1), 60_000, 'every create');
      const started = performance.now();
      for (const name of names) await h.client.delete(ref(name));
      await eventually(() => forgetful.swallowed() === OBJECTS, 60_000, 'every first removal lost');
      // Something else touches each object (as any update would): the engine sees our finalizer again.
      for (const name of names) {
        await h.client
          .patch(ref(name), { metadata: { annotations: { touched: 'yes' } } }, 'merge')
          .catch(() => undefined);
      }
      const left = async (): Promise<number> =>
        (await h.client.list({ ...WIDGET, namespace: 'default' })).items.length;
      await eventually(async () => (await left()) === 0, 60_000, 'every object gone');
      const goneMs = performance.now() - started;
      const cleanups = names.map((n) => recorder.count('delete', n));
      const figures = {
        objects: OBJECTS,
        removalsLost: forgetful.swallowed(),
        stuckAtEnd: await left(),
        cleanupsOnce: cleanups.filter((c) => c === 1).length,
        cleanupsTwice: cleanups.filter((c) => c > 1).length,
        allGoneMs: Math.round(goneMs),
      };
      recordFigures('lost-finalizer', figures);
      expect(figures.stuckAtEnd).toBe(0);
      expect(figures.cleanupsOnce).toBe(OBJECTS);
    } finally {
      await fw?.stop();
      proxy?.close();
      await h.close();
    }
  });
});
