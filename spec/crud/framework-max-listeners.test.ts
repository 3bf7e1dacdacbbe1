import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Framework } from '../../lib/crud/framework.js';
import { createLogger } from '../../lib/observability/logger.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import {
  eventually,
  RecordingResource,
  startHarness,
  widget,
  WIDGET,
  type Harness,
  type Widget,
} from './harness.js';

// R5 of the reliability scenarios: many requests in flight on the framework's long-lived signals (here
// 50 Warning Event writes held up by the API server) must not print MaxListenersExceededWarning.
describe('Framework under many concurrent requests on one signal', () => {
  let h: Harness;
  let framework: Framework<Widget> | undefined;
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => {
    warnings.push(w);
  };

  beforeEach(async () => {
    warnings.length = 0;
    process.on('warning', onWarning);
    h = await startHarness();
  });
  afterEach(async () => {
    h.server.faults.clear();
    await framework?.stop();
    framework = undefined;
    await h.close();
    process.off('warning', onWarning);
  });

  it('writes 50 delayed Warning Events at once without a MaxListenersExceededWarning', async () => {
    const count = 50;
    for (let i = 0; i < count; i++) await h.client.create(widget(`w${String(i)}`));
    h.server.faults.inject({ verb: 'create', resource: 'events', delayMs: 600 });

    const recorder = new RecordingResource();
    recorder.onCreate = () => {
      throw new Error('always broken');
    };
    framework = new Framework<Widget>({
      name: 'widgets',
      kubeConfig: h.kubeConfig,
      resource: { apiVersion: WIDGET.apiVersion, kind: WIDGET.kind },
      resourceSets: [new ResourceSet<Widget>({ resources: [recorder] })],
      logger: createLogger({ silent: true }),
      workers: count,
      finalizer: false,
    });
    await framework.start();
    // Every object failed at least once while its Event create is still held up by the delay fault.
    await eventually(
      () => new Set(recorder.calls.map((c) => c.key)).size === count,
      5_000,
      'every object ran',
    );
    const events = await eventually(
      async () => {
        const list = await h.client.list({
          apiVersion: 'v1',
          kind: 'Event',
          plural: 'events',
          namespace: 'default',
        });
        return list.items.length >= count ? list.items : undefined;
      },
      8_000,
      'every Warning Event written',
    );
    expect(events.length).toBeGreaterThanOrEqual(count);
    // Warnings are emitted on the next tick after the listener that crossed the limit.
    await new Promise((r) => setImmediate(r));
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual(
      [],
    );
  });
});
