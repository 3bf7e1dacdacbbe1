// The live-view attack as it happens: the operator (an embedded API server and a Controller with the live
// view, one process as `reconcilekit dev` runs them) in a child process of its own; the patch load in a
// second child; the 2,000 stalled stream clients and the /healthz probes here. So the operator's RSS and
// throughput are its own, and the probes time its health server rather than this process's event loop.
// Needs the build (`make soak` builds first).
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { createInterface, type Interface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { percentile, probe, stallStreams } from '../../debug/support/stream-flood.js';
import { recordFigures } from '../support/figures.js';

const WINDOW_MS = 10_000;
/** Stalled stream clients; LIVE_VIEW_FLOOD_STALLED=0 measures the same run without the flood. */
const STALLED = Number(process.env.LIVE_VIEW_FLOOD_STALLED ?? '2000');
const FIXTURE = 'spec/debug/fixtures/live-view-operator.ts';
/** Concurrent patch loops (each a ConfigMap patched as fast as the server answers); default 20. */
const PATCHERS = process.env.LIVE_VIEW_FLOOD_PATCHERS ?? '20';
// LIVE_VIEW_FLOOD_PROBE_THREAD=main runs the operator with its probes on the main event loop (the opt-out),
// for a side-by-side figure; the default is the probe thread.

interface Proc {
  child: ChildProcess;
  lines: Interface;
  next(): Promise<Record<string, number | string>>;
  stats(): Promise<Record<string, number>>;
}

function start(args: string[]): Proc {
  const child = spawn(process.execPath, [FIXTURE, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => {
    const w = waiting.shift();
    if (w === undefined) queue.push(line);
    else w(line);
  });
  const next = async (): Promise<Record<string, number | string>> => {
    const line = queue.shift() ?? (await new Promise<string>((resolve) => waiting.push(resolve)));
    return JSON.parse(line) as Record<string, number | string>;
  };
  return {
    child,
    lines,
    next,
    stats: async () => {
      child.stdin.write('stats\n');
      return (await next()) as Record<string, number>;
    },
  };
}

async function window(
  operator: Proc,
  healthUrl: string,
): Promise<{ reconciles: number; probes: number[]; rssMiB: number; memory: Record<string, number> }> {
  const before = await operator.stats();
  const probes: Promise<number>[] = [];
  const until = Date.now() + WINDOW_MS;
  while (Date.now() < until) {
    probes.push(probe(`${healthUrl}/healthz`));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const times = await Promise.all(probes);
  const after = await operator.stats();
  return {
    reconciles: (after.reconciles ?? 0) - (before.reconciles ?? 0),
    probes: times,
    rssMiB: after.rssMiB ?? 0,
    memory: after,
  };
}

describe('soak: stalled live-view streams', () => {
  it('2,000 clients that open /debug/api/stream and never read: reconciles within 20 % of the runs around it, /healthz p99 < 100 ms, memory back after they leave', async () => {
    const operator = start([]);
    let patcher: Proc | undefined;
    const opened: Socket[] = [];
    try {
      const { apiUrl, healthUrl } = (await operator.next()) as { apiUrl: string; healthUrl: string };
      patcher = start(['patch', apiUrl, PATCHERS]);
      await new Promise((resolve) => setTimeout(resolve, 3000)); // the patch loops under way
      const before = await window(operator, healthUrl);
      const { streaming, refused, sockets } = await stallStreams(
        Number(new URL(healthUrl).port),
        STALLED,
        opened,
      );
      const flooded = await window(operator, healthUrl);
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const after = await window(operator, healthUrl);
      // Memory once more 10 s later: what the process keeps, not what it has not yet given back.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      const later = await operator.stats();
      const around = (before.reconciles + after.reconciles) / 2;
      const figures = {
        stalled: STALLED,
        patchers: Number(PATCHERS),
        probeThread: process.env.LIVE_VIEW_FLOOD_PROBE_THREAD ?? 'worker',
        healthP50BeforeMs: Math.round(percentile(before.probes, 50)),
        healthP50FloodedMs: Math.round(percentile(flooded.probes, 50)),
        healthP50AfterMs: Math.round(percentile(after.probes, 50)),
        streaming,
        refused,
        reconcilesBefore: before.reconciles,
        reconcilesFlooded: flooded.reconciles,
        reconcilesAfter: after.reconciles,
        ratio: Number((flooded.reconciles / around).toFixed(2)),
        healthP99BeforeMs: Math.round(percentile(before.probes, 99)),
        healthP99FloodedMs: Math.round(percentile(flooded.probes, 99)),
        healthP99AfterMs: Math.round(percentile(after.probes, 99)),
        rssBeforeMiB: before.rssMiB,
        rssFloodedMiB: flooded.rssMiB,
        rssAfterMiB: after.rssMiB,
        rssLaterMiB: later.rssMiB ?? 0,
        // The main thread's V8 heap and external memory (Buffers) before / flooded / after / later.
        heapTotalMiB: [before, flooded, after]
          .map((w) => w.memory.heapTotalMiB ?? 0)
          .concat(later.heapTotalMiB ?? 0),
        externalMiB: [before, flooded, after]
          .map((w) => w.memory.externalMiB ?? 0)
          .concat(later.externalMiB ?? 0),
      };
      recordFigures('live-view-flood', figures);
      console.log(JSON.stringify(figures));
      expect(figures.ratio).toBeGreaterThanOrEqual(0.8);
      expect(figures.healthP99FloodedMs).toBeLessThan(100);
      expect(figures.rssFloodedMiB - figures.rssBeforeMiB).toBeLessThan(100);
      expect(figures.rssAfterMiB - figures.rssBeforeMiB).toBeLessThan(100);
    } finally {
      for (const s of opened) s.destroy();
      patcher?.child.kill('SIGKILL');
      operator.child.kill('SIGKILL');
    }
  });
});
