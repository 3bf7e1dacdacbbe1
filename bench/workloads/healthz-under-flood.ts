// Part of workload 5: /healthz latency on the embedded API server while slow watchers are flooded. W watches
// that never read (raw sockets, paused) plus N writes of 1 MiB ConfigMaps; the driver polls /healthz every
// 10 ms for the whole flood and records every answer's latency. Target (issue 14): ≤ 100 ms.
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { BenchContext, TargetCheck } from '../lib/bench-context.js';
import { progress } from '../lib/progress.js';
import { percentile, summarise, type Summary } from '../lib/stats.js';
import { formatNumber } from '../lib/table.js';
import { embeddedTarget } from '../lib/target.js';
import { configMapsPath } from '../lib/website.js';

/** Watches and 1 MiB writes per mode (full: the 2,000 watches + 100 writes). */
const FLOOD_SIZES = {
  full: { watches: 2000, writes: 100 },
  quick: { watches: 500, writes: 20 },
  tiny: { watches: 20, writes: 3 },
} as const;

/** What one flood run measured. */
export interface FloodSamples {
  watches: number;
  writes: number;
  /** Every /healthz latency during the flood, ms. */
  healthMs: number[];
  /** Wall time of the N writes, ms. */
  writesMs: number;
}

/** Opens a watch on a raw socket and stops reading it (a slow client). */
async function openStalledWatch(port: number, path: string, token: string | undefined): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const auth = token === undefined ? '' : `Authorization: Bearer ${token}\r\n`;
  socket.write(`GET ${path}?watch=true HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}\r\n`);
  socket.pause();
  return socket;
}

/** One flood against a fresh embedded server child (plain HTTP, as the bench starts it). */
export async function measureHealthUnderFlood(ctx: BenchContext): Promise<FloodSamples> {
  const { watches, writes } = FLOOD_SIZES[ctx.mode];
  progress(`workload 5: /healthz under ${watches} stalled watches + ${writes} writes of 1 MiB`);
  const target = await embeddedTarget({ installCrd: false, profileDir: ctx.profileDir });
  const url = new URL(target.rest.server);
  if (url.protocol !== 'http:')
    throw new Error(`the flood needs the plain-HTTP embedded server, got ${url.href}`);
  const token = target.rest.kubeConfig.getCurrentUser()?.token;
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  const path = configMapsPath(target.namespace);
  const sockets: Socket[] = [];
  const healthMs: number[] = [];
  const state = { flooding: true };
  try {
    // Warm the driver's fetch (its first call loads undici and connects) so the polls time the server.
    await (await fetch(`${url.origin}/healthz`, { headers })).arrayBuffer();
    for (let i = 0; i < watches; i++) sockets.push(await openStalledWatch(Number(url.port), path, token));
    const poll = (async () => {
      while (state.flooding) {
        const started = performance.now();
        const res = await fetch(`${url.origin}/healthz`, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`/healthz answered ${res.status} during the flood`);
        healthMs.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const big = 'x'.repeat(1024 * 1024 - 200);
    const started = performance.now();
    try {
      for (let i = 0; i < writes; i++) {
        const res = await fetch(url.origin + path, {
          method: 'POST',
          headers,
          body: JSON.stringify({ metadata: { name: `flood-${i}` }, data: { big } }),
        });
        await res.arrayBuffer();
        if (res.status !== 201) throw new Error(`write ${i} of the flood answered ${res.status}`);
      }
    } finally {
      state.flooding = false;
      await poll;
    }
    return { watches, writes, healthMs, writesMs: performance.now() - started };
  } finally {
    state.flooding = false;
    for (const socket of sockets) socket.destroy();
    await target.close();
  }
}

/** The flood's target line and raw figures. */
export function floodResult(flood: FloodSamples): { target: TargetCheck; note: string; raw: unknown } {
  const health: Summary = summarise(flood.healthMs);
  const p99 = percentile(flood.healthMs, 99);
  return {
    target: {
      target: `/healthz ≤ 100 ms under ${flood.watches} non-reading watches + ${flood.writes} writes of 1 MiB (slowest)`,
      actual:
        `slowest ${formatNumber(health.max, 0)} ms, p99 ${formatNumber(p99, 0)} ms, median ` +
        `${formatNumber(health.median, 1)} ms over ${flood.healthMs.length} polls`,
      met: health.max <= 100,
    },
    note:
      `Flood: ${flood.watches} watches that never read, ${flood.writes} ConfigMaps of 1 MiB written one after ` +
      `another in ${formatNumber(flood.writesMs / 1000, 1)} s while the driver polled /healthz every 10 ms.`,
    raw: { ...flood, healthMs: health, healthP99Ms: p99 },
  };
}
