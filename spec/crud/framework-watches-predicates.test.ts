import { describe, expect, it } from 'vitest';
import { Framework } from '../../lib/crud/framework.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import { isInvalidConfig } from '../../lib/errors/invalid-config-error.js';
import { predicates } from '../../lib/engine/predicates.js';
import { createLogger } from '../../lib/observability/logger.js';
import { eventually, RecordingResource, useHarness, widget, WIDGET, type Widget } from './harness.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const CONFIGMAPS = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' } as const;

describe('Framework watches and predicates (engine options, both backends)', () => {
  const t = useHarness();

  function start(recorder: RecordingResource, extra: Record<string, unknown>): Promise<void> {
    const fw = new Framework<Widget>({
      name: 'watches',
      kubeConfig: t.h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind, namespace: 'default' },
      resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
      finalizer: false,
      resyncPeriodMs: 0,
      logger: createLogger({ silent: true }),
      ...extra,
    });
    t.stops.push(() => fw.stop());
    return fw.start();
  }

  it('reconciles the widget a watched ConfigMap names through the mapper', async () => {
    const recorder = new RecordingResource();
    await start(recorder, {
      watches: [
        {
          ...CONFIGMAPS,
          namespace: 'default',
          map: (cm: { metadata?: { namespace?: string; labels?: Record<string, string> } }) => {
            const name = cm.metadata?.labels?.widget;
            return name === undefined ? [] : [`${cm.metadata?.namespace}/${name}`];
          },
        },
      ],
    });
    await t.h.client.create(widget('mapped'));
    await eventually(() => recorder.count('create', 'mapped') === 1);
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'points-at-mapped', namespace: 'default', labels: { widget: 'mapped' } },
      data: { a: '1' },
    };
    await t.h.client.create(cm);
    await eventually(() => recorder.count('create', 'mapped') >= 2);
    t.stops.push(() => t.h.client.delete({ ...CONFIGMAPS, namespace: 'default', name: 'points-at-mapped' }));
  });

  it('drops the reconciled kind’s events its predicates reject (a label change, generation unchanged)', async () => {
    const recorder = new RecordingResource();
    await start(recorder, { predicates: [predicates.generationChanged()] });
    await t.h.client.create(widget('filtered', {}, { size: 1 }));
    await eventually(() => recorder.count('create', 'filtered') === 1);
    await t.h.client.patch(
      { ...WIDGET, namespace: 'default', name: 'filtered' },
      { metadata: { labels: { touched: 'yes' } } },
      'merge',
    );
    await sleep(500);
    expect(recorder.count('create', 'filtered')).toBe(1);
    await t.h.client.patch(
      { ...WIDGET, namespace: 'default', name: 'filtered' },
      { spec: { size: 2 } },
      'merge',
    );
    await eventually(() => recorder.count('create', 'filtered') === 2);
  });

  it('refuses a watch without a mapper with a typed error naming the field', () => {
    let err: unknown;
    try {
      new Framework<Widget>({
        name: 'bad',
        resourceSets: [new ResourceSet<Widget>({ resources: [new RecordingResource()] })],
        finalizer: false,
        watches: [{ apiVersion: 'v1', kind: 'ConfigMap' } as never],
      });
    } catch (e) {
      err = e;
    }
    expect(isInvalidConfig(err)).toBe(true);
    expect(String(err)).toContain('config.watches[0].map is required');
  });
});
