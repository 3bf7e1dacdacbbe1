// Soak: with `finalizer: false`, 100 objects deleted and re-created under the same name while the only
// worker is busy. Issue 14 found 58 and 98 of 100 old objects' cleanups skipped; tombstones keyed by uid
// must run every old object's delete path once, and create every new one.
import { describe, expect, it } from 'vitest';
import { Framework } from '../../../lib/crud/framework.js';
import { createLogger } from '../../../lib/observability/logger.js';
import { ResourceSet } from '../../../lib/crud/router/resource-set.js';
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

const OBJECTS = 100;

describe('soak: same-name re-create with finalizers off', () => {
  it(`${OBJECTS} objects deleted and re-created before their delete pass: every old cleanup runs once`, async () => {
    const h = await startHarness();
    const recorder = new RecordingResource();
    const deletedUids: string[] = [];
    let release: () => void = () => undefined;
    const blocker = new Promise<void>((resolve) => (release = resolve));
    recorder.onCreate = async (_ctx, obj) => {
      if (obj.metadata?.name === 'blocker') await blocker;
    };
    recorder.onDelete = (_ctx, obj) => {
      deletedUids.push(obj.metadata?.uid ?? '');
    };
    const fw = new Framework<Widget>({
      name: 'recreate-soak',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
      logger: createLogger({ silent: true }),
      finalizer: false,
      workers: 1,
      healthServer: false,
    });
    try {
      await fw.start();
      const names = Array.from({ length: OBJECTS }, (_, i) => `same-${String(i)}`);
      const firstUids = new Set<string>();
      for (const name of names) firstUids.add((await h.client.create(widget(name))).metadata?.uid ?? '');
      await eventually(() => names.every((n) => recorder.count('create', n) === 1), 60_000, 'first creates');
      // The only worker is busy: every delete and re-create lands before any delete pass runs.
      await h.client.create(widget('blocker'));
      await eventually(() => recorder.count('create', 'blocker') === 1, 10_000, 'the blocker');
      const secondUids = new Set<string>();
      for (const name of names) {
        await h.client.delete(ref(name));
        secondUids.add((await h.client.create(widget(name))).metadata?.uid ?? '');
      }
      const started = performance.now();
      release();
      await eventually(
        () => names.every((n) => recorder.count('create', n) === 2) && deletedUids.length >= OBJECTS,
        60_000,
        'every old cleanup and new create',
      );
      await new Promise((r) => setTimeout(r, 500)); // nothing more may come
      const figures = {
        objects: OBJECTS,
        oldCleanupsRun: deletedUids.filter((u) => firstUids.has(u)).length,
        oldCleanupsSkipped: [...firstUids].filter((u) => !deletedUids.includes(u)).length,
        cleanupsOfNewObjects: deletedUids.filter((u) => secondUids.has(u)).length,
        duplicateCleanups: deletedUids.length - new Set(deletedUids).size,
        convergeMs: Math.round(performance.now() - started - 500),
      };
      recordFigures('same-name-recreate', figures);
      expect(figures.oldCleanupsSkipped).toBe(0);
      expect(figures.oldCleanupsRun).toBe(OBJECTS);
      expect(figures.cleanupsOfNewObjects).toBe(0);
      expect(figures.duplicateCleanups).toBe(0);
    } finally {
      await fw.stop();
      await h.close();
    }
  });
});
