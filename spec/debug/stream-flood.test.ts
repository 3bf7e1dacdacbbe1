// Stalled live-view streams cannot stall the operator: a bounded number of streams (503 past it), bounded
// buffers, passes recorded without waiting on any client, and everything released when they leave. The
// soak (spec/reliability/soak/live-view-flood.soak.ts) runs 2,000 stalled clients against throughput.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { debugStreamsOf } from '../../lib/debug/debug-routes.js';
import { DEBUG_STREAM_BUFFER_BYTES, DEFAULT_DEBUG_MAX_STREAMS } from '../../lib/debug/debug-streams.js';
import { eventually } from '../crud/harness.js';
import { measureWindow, percentile, startLiveViewLoad, type LiveViewLoad } from './support/stream-flood.js';

describe('live view under a flood of stalled streams', () => {
  let load: LiveViewLoad | undefined;
  afterEach(async () => {
    await load?.stop();
    load = undefined;
  });

  it('serves DEFAULT_DEBUG_MAX_STREAMS streams and answers the rest 503; buffers stay bounded; the operator and /healthz carry on; all is released when they leave', async () => {
    load = await startLiveViewLoad(4);
    const { streaming, refused, sockets } = await load.stall(60);
    expect(streaming).toBe(DEFAULT_DEBUG_MAX_STREAMS);
    expect(refused).toBe(60 - DEFAULT_DEBUG_MAX_STREAMS);
    const window = await measureWindow(load, 3000);
    expect(window.reconciles).toBeGreaterThan(20);
    expect(percentile(window.probes, 100)).toBeLessThan(2000);
    const streams = debugStreamsOf(load.history);
    // Every stream client either within its bound (plus one batch) or dropped.
    expect(streams?.bufferedBytes ?? 0).toBeLessThanOrEqual(
      DEFAULT_DEBUG_MAX_STREAMS * 2 * DEBUG_STREAM_BUFFER_BYTES,
    );
    for (const s of sockets) s.destroy();
    await eventually(() => (streams?.size ?? 0) === 0, 5000, 'every stream forgotten');
    expect(load.history.subscribers).toBe(0);
  });

  it('answers a refused stream client with Connection: close and ends its connection', async () => {
    load = await startLiveViewLoad(1);
    const { streaming } = await load.stall(DEFAULT_DEBUG_MAX_STREAMS);
    expect(streaming).toBe(DEFAULT_DEBUG_MAX_STREAMS);
    const socket = connect(Number(new URL(load.healthUrl).port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write('GET /debug/api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString();
    });
    // The server ends the connection after its answer (kept alive, it would idle until keep-alive ran out).
    await new Promise((resolve) => socket.once('close', resolve));
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text.toLowerCase()).toContain('connection: close');
  });
});
