// A failed pass names where it failed — the resource and CRUD step, or the reconciler function — in the log
// line (failedAt), the Warning Event and the error condition, while the error itself reaches the author
// unwrapped.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Controller } from '../../lib/controller/controller.js';
import { failureSite } from '../../lib/errors/failure-site.js';
import { Framework } from '../../lib/crud/framework.js';
import { getCondition, type StatusCondition } from '../../lib/status/status-conditions.js';
import { createLogger } from '../../lib/observability/logger.js';
import { CRUDResource } from '../../lib/crud/resource/crud-resource.js';
import { Patch } from '../../lib/crud/resource/patch.js';
import { ResourceSet } from '../../lib/crud/router/resource-set.js';
import { eventually, ref, useHarness, widget, WIDGET, type Harness, type Widget } from '../crud/harness.js';

type WithStatus = Widget & { status?: { conditions?: StatusCondition[] } };

class QuotaError extends Error {
  override readonly name = 'QuotaError';
}

async function warningFor(h: Harness, name: string): Promise<{ message?: string } | undefined> {
  const list = await h.client.list({
    apiVersion: 'v1',
    kind: 'Event',
    plural: 'events',
    namespace: 'default',
  });
  return list.items.find(
    (e) =>
      (e as { involvedObject?: { name?: string }; type?: string }).involvedObject?.name === name &&
      (e as { type?: string }).type === 'Warning',
  ) as { message?: string } | undefined;
}

function jsonLines(into: Record<string, unknown>[]): ReturnType<typeof createLogger> {
  return createLogger({
    level: 'error',
    format: 'json',
    stream: new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of String(chunk).split('\n')) if (line.trim() !== '') into.push(JSON.parse(line));
        done();
      },
    }),
  });
}

describe('where a pass failed', () => {
  const t = useHarness();

  it('names the resource and CRUD step in the log line, the Warning Event and the error condition', async () => {
    const thrown: unknown[] = [];
    const configMap = new CRUDResource<Widget, string>({
      ops: {
        name: 'configmap',
        getCurrentState: () => 'current',
        getDesiredState: () => 'desired',
        newUpdatePatch: () => {
          const err = new QuotaError('quota exceeded for configmaps');
          thrown.push(err);
          throw err;
        },
        newDeletePatch: () => new Patch<string>(),
        applyCreateChange: () => undefined,
        applyDeleteChange: () => undefined,
        applyUpdateChange: () => undefined,
      },
    });
    const lines: Record<string, unknown>[] = [];
    const fw = new Framework<Widget>({
      name: 'sites',
      kubeConfig: t.h.kubeConfig,
      resource: WIDGET,
      resourceSets: [new ResourceSet<Widget>({ resources: [configMap] })],
      logger: jsonLines(lines),
    });
    t.stops.push(() => fw.stop());
    await fw.start();
    await t.h.client.create(widget('w'));

    const where = 'resource "configmap" step newUpdatePatch';
    const event = await eventually(() => warningFor(t.h, 'w'), 10_000, 'a Warning Event');
    expect(event.message).toBe(`${where}: quota exceeded for configmaps`);
    const obj = await eventually(async () => {
      const o = await t.h.client.get<WithStatus>(ref('w'));
      return getCondition(o.status?.conditions, 'Ready') === undefined ? undefined : o;
    });
    expect(getCondition(obj.status?.conditions, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'QuotaError',
      message: `${where}: quota exceeded for configmaps`,
    });
    const failed = lines.find((l) => l.message === 'failed to reconcile');
    expect(failed).toMatchObject({ failedAt: where, reason: 'QuotaError' });
    // Not wrapped: the author's error object is the one recorded.
    expect(thrown[0]).toBeInstanceOf(QuotaError);
    expect(failureSite(thrown[0])).toEqual({ resource: 'configmap', step: 'newUpdatePatch' });
  });

  it('names the reconciler function of a Controller (reconcile, or cleanup on deletion)', async () => {
    const ctrl = new Controller<Widget>({
      name: 'sites-ctrl',
      kubeConfig: t.h.kubeConfig,
      resource: WIDGET,
      reconciler: {
        reconcile: () => {
          throw new Error('cannot reach the cloud');
        },
      },
      logger: createLogger({ silent: true }),
    });
    t.stops.push(() => ctrl.stop());
    await ctrl.start();
    await t.h.client.create(widget('c'));
    const event = await eventually(() => warningFor(t.h, 'c'), 10_000, 'a Warning Event');
    expect(event.message).toBe('reconciler.reconcile: cannot reach the cloud');
  });
});
