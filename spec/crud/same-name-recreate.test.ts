// finalizer: false — deleting an object and re-creating one with the same name before the delete pass
// ran must still run the old object's delete path (tombstones keyed by uid).
import { afterEach, describe, expect, it } from 'vitest';
import { Framework } from '../../lib/crud/framework.js';
import { createLogger } from '../../lib/observability/logger.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import {
  eventually,
  RecordingResource,
  ref,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from './harness.js';

describe('same-name re-create with finalizers off', () => {
  let h: Harness | undefined;
  let fw: Framework<Widget> | undefined;
  afterEach(async () => {
    await fw?.stop();
    await h?.close();
  });

  it('runs the old object’s delete path once, then the new object’s create', async () => {
    h = await startHarness();
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
    fw = new Framework<Widget>({
      name: 'no-finalizer',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
      logger: createLogger({ silent: true }),
      finalizer: false,
      workers: 1,
      healthServer: false,
    });
    await fw.start();
    const first = await h.client.create(widget('same'));
    await eventually(() => recorder.count('create', 'same') === 1);
    // The only worker is busy: the delete and the re-create both land before the delete pass runs.
    await h.client.create(widget('blocker'));
    await eventually(() => recorder.count('create', 'blocker') === 1);
    await h.client.delete(ref('same'));
    const second = await h.client.create(widget('same'));
    await new Promise((r) => setTimeout(r, 100));
    release();
    await eventually(() => recorder.count('create', 'same') === 2, 5000, 'the new object to be created');
    await eventually(() => deletedUids.length === 1, 5000, 'the old object to be cleaned up');
    expect(deletedUids).toEqual([first.metadata?.uid]);
    expect(second.metadata?.uid).not.toBe(first.metadata?.uid);
  });
});
