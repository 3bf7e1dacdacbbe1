// The live view under bad input: 10,000 objects (bounded answers, every object findable), very long error
// messages (clipped in the history, the stream and the Events), and clients that stop reading or vanish
// mid-stream — the operator keeps reconciling and drops them.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { Controller } from '../../lib/controller/controller.js';
import {
  DEBUG_ERROR_CHARS,
  DEFAULT_DEBUG_MAX_OBJECTS,
  HistoryRecorder,
  type ObjectSummary,
  type PassRecord,
} from '../../lib/debug/history-recorder.js';
import { debugStreamsOf } from '../../lib/debug/debug-routes.js';
import { TRIGGERS } from '../../lib/debug/pass-trigger.js';
import { createLogger } from '../../lib/observability/logger.js';
import { HealthServer } from '../../lib/observability/health-server.js';
import { eventually, useHarness, widget, WIDGET, type Widget } from '../crud/harness.js';

const servers: HealthServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(history: HistoryRecorder): Promise<string> {
  const server = new HealthServer({
    host: '127.0.0.1',
    port: 0,
    registry: new Registry(),
    debug: { history, controllers: () => [] },
  });
  servers.push(server);
  return server.start();
}

function pass(n: number, extra: Partial<PassRecord> = {}): PassRecord {
  return {
    startedAt: n,
    durationMs: 3,
    result: 'success',
    attempt: 0,
    deleting: false,
    trigger: TRIGGERS.update,
    resources: [{ resource: 'configmap', steps: { getCurrentState: 1, applyCreateChange: 2 } }],
    ...extra,
  };
}

const name = (i: number) => `default/obj-${String(i).padStart(5, '0')}`;

/** Opens the SSE stream; resolves with the request and response once the first bytes arrived. */
function openStream(url: string): Promise<{ req: ClientRequest; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/debug/api/stream`, (res) => {
      res.once('data', () => {
        resolve({ req, res });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('live view under bad input', () => {
  it('10,000 objects: at most 500 rows per answer, matches counted, any object found by name', async () => {
    const h = new HistoryRecorder();
    const extra = 500;
    for (let i = 0; i < DEFAULT_DEBUG_MAX_OBJECTS + extra; i++) h.record('web', name(i), pass(i));
    expect(h.size).toBe(DEFAULT_DEBUG_MAX_OBJECTS);
    const url = await serve(h);
    const res = await fetch(`${url}/debug/api/objects`);
    const body = await res.text();
    const all = JSON.parse(body) as { total: number; matched: number; objects: ObjectSummary[] };
    expect(all.total).toBe(DEFAULT_DEBUG_MAX_OBJECTS);
    expect(all.matched).toBe(DEFAULT_DEBUG_MAX_OBJECTS);
    expect(all.objects).toHaveLength(500);
    expect(all.objects[0]?.key).toBe(name(DEFAULT_DEBUG_MAX_OBJECTS + extra - 1)); // most recent first
    expect(body.length).toBeLessThan(200_000);
    // An old one, far from the first 500 rows, is one search away; an evicted one is gone.
    const find = async (q: string) =>
      (await (await fetch(`${url}/debug/api/objects?search=${q}`)).json()) as {
        matched: number;
        objects: ObjectSummary[];
      };
    const old = await find(`obj-${String(extra + 7).padStart(5, '0')}`);
    expect(old.matched).toBe(1);
    expect(old.objects.map((o) => o.key)).toEqual([name(extra + 7)]);
    expect((await find('obj-00007')).matched).toBe(0);
    expect((await find('obj-1')).matched).toBe(extra); // obj-10000 … obj-10499
  });

  it('a 5 MB error message is clipped in the history, the API, the stream and the Events', async () => {
    const h = new HistoryRecorder();
    const url = await serve(h);
    const { req, res } = await openStream(url);
    let streamed = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      streamed += chunk;
    });
    const huge = `quota <b>exceeded</b> ${'x'.repeat(5 * 1024 * 1024)}`;
    h.record('web', 'default/loud', pass(1, { result: 'error', error: huge }));
    h.recordEvent({
      controller: 'web',
      type: 'Warning',
      reason: 'Failed',
      message: huge,
      object: 'W a',
      at: 1,
    });
    const api = await (await fetch(`${url}/debug/api/object?controller=web&key=default%2Floud`)).text();
    expect(api.length).toBeLessThan(DEBUG_ERROR_CHARS + 1_000);
    expect(JSON.parse(api)).toMatchObject({
      passes: [{ error: expect.stringMatching(/^quota <b>exceeded<\/b> x+…$/) }],
    });
    const events = await (await fetch(`${url}/debug/api/events`)).text();
    expect(events.length).toBeLessThan(DEBUG_ERROR_CHARS + 1_000);
    await eventually(() => streamed.includes('event: pass'), 5_000, 'the streamed pass');
    expect(streamed.length).toBeLessThan(DEBUG_ERROR_CHARS + 1_000);
    req.destroy();
  });

  describe('on a running controller', () => {
    const t = useHarness();

    it('keeps reconciling while one client stops reading and another vanishes mid-stream; both are dropped', async () => {
      const reconciled = new Set<string>();
      const ctrl = new Controller<Widget>({
        name: 'steady',
        kubeConfig: t.h.kubeConfig,
        resource: WIDGET,
        finalizer: false,
        debugPage: true,
        healthServer: { host: '127.0.0.1', port: 0 },
        reconciler: {
          reconcile: (_ctx, req) => {
            const n = req.object.metadata?.name ?? '';
            if (n === 'loud') throw new Error(`<script>alert(1)</script>${'e'.repeat(1024 * 1024)}`);
            reconciled.add(n);
          },
        },
        logger: createLogger({ silent: true }),
      });
      t.stops.push(() => ctrl.stop());
      await ctrl.start();
      const url = ctrl.healthUrl ?? '';
      const history = ctrl.core.history;
      if (history === undefined) throw new Error('debugPage is on: the core has a history');

      const stalled = await openStream(url);
      stalled.res.pause(); // never reads again
      const vanishing = await openStream(url);
      const streams = (): number => debugStreamsOf(history)?.size ?? 0;
      expect(streams()).toBe(2);
      expect(history.subscribers).toBe(1); // one subscription serves every stream

      await t.h.client.create(widget('loud'));
      const names = Array.from({ length: 40 }, (_, i) => `w${i}`);
      for (const [i, n] of names.entries()) {
        await t.h.client.create(widget(n));
        if (i === 10) vanishing.res.socket.destroy(); // gone mid-stream
      }
      await eventually(() => names.every((n) => reconciled.has(n)), 30_000, 'every object reconciled');
      await eventually(() => streams() === 1, 5_000, 'the vanished client dropped');
      const loud = (await (await fetch(`${url}/debug/api/objects?search=loud`)).json()) as {
        objects: ObjectSummary[];
      };
      expect(loud.objects[0]?.error?.length).toBeLessThanOrEqual(DEBUG_ERROR_CHARS + 1);
      expect(loud.objects[0]?.error).toContain('<script>alert(1)</script>');

      stalled.req.destroy();
      await eventually(() => streams() === 0, 5_000, 'the stalled client dropped');
      expect(history.subscribers).toBe(0);
      // Still reconciling after both are gone.
      await t.h.client.create(widget('after'));
      await eventually(() => reconciled.has('after'), 15_000, 'a new object reconciled');
    });
  });
});
