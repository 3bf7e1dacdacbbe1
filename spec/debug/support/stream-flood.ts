// The live-view attack: an operator with the live view on, its objects patched steadily, while loopback
// clients open /debug/api/stream and never read. Measures reconciles per window and the health server's
// /healthz on fresh connections.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { startApiServer, type ApiServer } from '../../../lib/apiserver/index.js';
import { Controller } from '../../../lib/controller/controller.js';
import type { HistoryRecorder } from '../../../lib/debug/history-recorder.js';
import { createLogger } from '../../../lib/observability/logger.js';

export interface LiveViewLoad {
  /** The health server (with /debug/). */
  healthUrl: string;
  /** Reconciles so far. */
  reconciles(): number;
  /** The live view's history. */
  history: HistoryRecorder;
  /** Opens `n` stream clients that never read; resolves with the statuses they got (200 or 503). */
  stall(n: number): Promise<{ streaming: number; refused: number; sockets: Socket[] }>;
  stop(): Promise<void>;
}

/** Starts the server, the operator (a Controller on ConfigMaps, live view on) and `patchers` patch loops. */
export async function startLiveViewLoad(patchers = 20): Promise<LiveViewLoad> {
  const server: ApiServer = await startApiServer();
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(server.kubeconfig);
  let reconciles = 0;
  const controller = new Controller<KubernetesObject>({
    name: 'flooded',
    kubeConfig,
    resource: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' },
    finalizer: false,
    debugPage: true,
    healthServer: { host: '127.0.0.1', port: 0 },
    logger: createLogger({ silent: true }),
    reconciler: () => {
      reconciles += 1;
    },
  });
  await controller.start();
  const base = `${server.url}/api/v1/namespaces/default/configmaps`;
  for (let i = 0; i < patchers; i++) {
    await fetch(base, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: `cm-${String(i)}` }, data: { n: '0' } }),
    });
  }
  let stopping = false;
  const loops = Array.from({ length: patchers }, async (_, i) => {
    for (let n = 1; !stopping; n++) {
      const res = await fetch(`${base}/cm-${String(i)}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ data: { n: String(n) } }),
      });
      await res.arrayBuffer();
    }
  });
  const healthUrl = controller.healthUrl ?? '';
  const port = Number(new URL(healthUrl).port);
  const opened: Socket[] = [];
  const history = controller.core.history;
  if (history === undefined) throw new Error('debugPage is on: the controller keeps a history');
  return {
    healthUrl,
    history,
    reconciles: () => reconciles,
    stall: (n) => stallStreams(port, n, opened),
    stop: async () => {
      stopping = true;
      for (const s of opened) s.destroy();
      await Promise.all(loops);
      await controller.stop();
      await server.close();
    },
  };
}

/**
 * Opens `n` clients of `/debug/api/stream` on 127.0.0.1:`port` that read the status line and never again
 * (each socket is kept in `opened`); resolves with the statuses they got (200 or 503).
 */
export async function stallStreams(
  port: number,
  n: number,
  opened: Socket[],
): Promise<{ streaming: number; refused: number; sockets: Socket[] }> {
  const one = async (): Promise<{ status: string; socket: Socket }> => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    opened.push(socket);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /debug/api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    // Read only the status line, then never again.
    const status = await new Promise<string>((resolve) => {
      socket.once('data', (d: Buffer) => {
        socket.pause();
        resolve(d.toString().slice(9, 12));
      });
      setTimeout(() => {
        resolve('none');
      }, 20_000).unref();
    });
    return { status, socket };
  };
  const results: { status: string; socket: Socket }[] = [];
  // In batches of 100: thousands of connects at once would only fill the listen backlog.
  for (let i = 0; i < n; i += 100) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(100, n - i) }, one))));
  }
  return {
    streaming: results.filter((r) => r.status === '200').length,
    refused: results.filter((r) => r.status !== '200').length,
    sockets: results.map((r) => r.socket),
  };
}

/** GET `url` on a fresh connection: its time in ms (Infinity when it failed or took over 10 s). */
export function probe(url: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(url, { agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => {
        resolve(res.statusCode === 200 ? performance.now() - started : Number.POSITIVE_INFINITY);
      });
    });
    req.on('timeout', () => {
      req.destroy();
      resolve(Number.POSITIVE_INFINITY);
    });
    req.on('error', () => {
      resolve(Number.POSITIVE_INFINITY);
    });
    req.end();
  });
}

/** Runs `probe` every `everyMs` for `ms`; returns the reconciles done meanwhile and the probe times. */
export async function measureWindow(
  load: LiveViewLoad,
  ms: number,
  everyMs = 100,
): Promise<{ reconciles: number; probes: number[] }> {
  const before = load.reconciles();
  const probes: Promise<number>[] = [];
  const until = Date.now() + ms;
  while (Date.now() < until) {
    probes.push(probe(`${load.healthUrl}/healthz`));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  const times = await Promise.all(probes);
  return { reconciles: load.reconciles() - before, probes: times };
}

/** The p-th percentile (0–100) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
