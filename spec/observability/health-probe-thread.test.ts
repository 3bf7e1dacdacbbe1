// The health server's probes on their own thread: while this (the main) thread spins synchronously — as
// a CPU-bound reconcile would — a probe client in another process still gets /healthz and /readyz answered,
// from the main loop's heartbeat and the checks' last published results; once the loop has been blocked
// longer than maxEventLoopBlockMs, /healthz fails naming how long. The probe thread is restarted when it
// dies, and ends with the server.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Worker } from 'node:worker_threads';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { debugStreamsOf } from '../../lib/debug/debug-routes.js';
import { DEFAULT_DEBUG_MAX_STREAMS } from '../../lib/debug/debug-streams.js';
import { HistoryRecorder } from '../../lib/debug/history-recorder.js';
import { HealthServer, type HealthServerOptions } from '../../lib/observability/health-server.js';

/** One probe as the probing process saw it: when it was answered (epoch ms), its status, time and body. */
interface Probe {
  path: string;
  doneAt: number;
  ms: number;
  status: number;
  body: string;
}

// Probes each path in turn on a fresh connection for `ms`, printing one JSON line per answer; prints
// "ready" after the first answer, so the test knows the prober runs before it blocks its own loop.
const PROBER = `
import { request } from 'node:http';
const [base, ms, ...paths] = process.argv.slice(1);
const until = Date.now() + Number(ms);
const one = (path) => new Promise((resolve) => {
  const started = performance.now();
  const req = request(base + path, { agent: false, timeout: 5000 }, (res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (c) => { body += c; });
    res.on('end', () => resolve({ path, doneAt: Date.now(), ms: performance.now() - started, status: res.statusCode, body }));
  });
  req.on('timeout', () => req.destroy(new Error('timeout')));
  req.on('error', (err) => resolve({ path, doneAt: Date.now(), ms: performance.now() - started, status: 0, body: err.message }));
  req.end();
});
let first = true;
for (let i = 0; Date.now() < until; i++) {
  const answer = await one(paths[i % paths.length]);
  process.stdout.write(JSON.stringify(answer) + '\\n');
  if (first) { first = false; process.stdout.write('ready\\n'); }
  await new Promise((r) => setTimeout(r, 40));
}
`;

/** Starts the prober; resolves once it has had its first answer, with a promise of all its probes. */
async function startProber(base: string, ms: number, paths: string[]): Promise<{ probes: Promise<Probe[]> }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', PROBER, base, String(ms), ...paths], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    out += chunk;
    if (out.includes('ready\n')) onReady();
  });
  const done = new Promise<Probe[]>((resolve) => {
    child.on('exit', () => {
      resolve(
        out
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Probe),
      );
    });
  });
  await ready;
  return { probes: done };
}

/** Blocks this thread's event loop for `ms`, as a CPU-bound reconcile does. Returns when it began and ended. */
function spin(ms: number): { from: number; to: number } {
  const from = Date.now();
  while (Date.now() - from < ms) {
    // busy
  }
  return { from, to: Date.now() };
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
    })
      .on('error', reject)
      .end();
  });
}

/** The probe thread of a server (its internals: the test kills it as a crash would). */
function probeWorker(server: HealthServer): Worker | undefined {
  return (server as unknown as { probes?: { worker?: Worker } }).probes?.worker;
}

/** Polls `check` every 20 ms for up to `ms` (5 s); fails naming `what` if it never holds. */
async function eventually(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

describe('health server probes on their own thread', () => {
  let server: HealthServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const make = (options: Partial<HealthServerOptions> = {}): HealthServer =>
    new HealthServer({ host: '127.0.0.1', port: 0, registry: new Registry(), ...options });

  it('answers /healthz and /readyz while the main loop spins 2 s within the bound', async () => {
    let ready = true;
    server = make({
      maxEventLoopBlockMs: 5_000,
      readinessChecks: { flag: () => (ready ? undefined : 'not yet') },
    });
    const url = await server.start();
    const { probes } = await startProber(url, 3_500, ['/healthz', '/readyz']);
    const { from, to } = spin(2_000);
    const during = (await probes).filter((p) => p.doneAt > from + 100 && p.doneAt < to - 100);
    // A probe answered on the main loop could not finish while it spins: these came from the probe thread.
    expect(during.length).toBeGreaterThanOrEqual(5);
    expect(during.every((p) => p.status === 200)).toBe(true);
    const healthz = during.filter((p) => p.path === '/healthz').map((p) => p.ms);
    expect(healthz.length).toBeGreaterThanOrEqual(2);
    expect(median(healthz)).toBeLessThan(100);
    // /readyz answers from the last published run while the loop cannot run the checks, and again fresh after.
    ready = false;
    const notReady = await get(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.body).toContain('[-]flag failed: not yet');
    ready = true;
    expect(await get(`${url}/readyz?verbose`)).toEqual({
      status: 200,
      body: '[+]main-loop ok\n[+]flag ok\nok\n',
    });
  });

  it('fails /healthz with 500 naming how long the loop is blocked once past the bound, and recovers', async () => {
    server = make({ maxEventLoopBlockMs: 700 });
    const url = await server.start();
    const { probes } = await startProber(url, 3_000, ['/healthz']);
    const { from, to } = spin(2_000);
    const all = await probes;
    const late = all.filter((p) => p.doneAt > from + 1_000 && p.doneAt < to - 100);
    expect(late.length).toBeGreaterThanOrEqual(3);
    for (const p of late) {
      expect(p.status).toBe(500);
      expect(p.body).toMatch(
        /^\[-\]main-loop failed: the event loop has been blocked for \d+ ms \(bound 700 ms\)/,
      );
    }
    const blocked = Number(/blocked for (\d+) ms/.exec(late.at(-1)?.body ?? '')?.[1]);
    expect(blocked).toBeGreaterThan(1_000);
    expect(blocked).toBeLessThanOrEqual(2_100);
    expect(all.filter((p) => p.doneAt > to + 300).every((p) => p.status === 200)).toBe(true);
    expect((await get(`${url}/healthz`)).status).toBe(200);
  });

  it('restarts a probe thread that dies, on the same address, and says so', async () => {
    const warnings: string[] = [];
    server = make({
      logger: {
        warn: (m: string) => warnings.push(m),
        error: (m: string) => warnings.push(m),
      },
    });
    const url = await server.start();
    const first = probeWorker(server);
    expect(first).toBeDefined();
    await first?.terminate();
    const deadline = Date.now() + 5_000;
    let answer: { status: number; body: string } | undefined;
    while (Date.now() < deadline) {
      answer = await get(`${url}/healthz`).catch(() => undefined);
      if (answer?.status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(answer?.status).toBe(200);
    expect(probeWorker(server)).not.toBe(first);
    expect(warnings).toEqual([expect.stringMatching(/health probe thread exited \(1\); restarting it/)]);
  });

  it('answers /readyz 503 naming the age of the last run once the checks have not finished within the bound, while /healthz stays 200', async () => {
    let slowMs = 0;
    server = make({
      maxEventLoopBlockMs: 700,
      readinessChecks: {
        // Resolves fine, but after slowMs: the loop keeps beating while the run does not finish.
        slow: () =>
          new Promise<undefined>((resolve) => {
            setTimeout(() => {
              resolve(undefined);
            }, slowMs);
          }),
      },
    });
    const url = await server.start();
    expect((await get(`${url}/readyz`)).status).toBe(200);
    slowMs = 3_000;
    // Past the bound the last published result is too old to answer from, whatever it said.
    await new Promise((r) => setTimeout(r, 1_800));
    const stale = await get(`${url}/readyz`);
    expect(stale.status).toBe(503);
    expect(stale.body).toMatch(
      /^\[\+\]main-loop ok\n\[-\]checks failed: last run (\d+) ms ago \(bound 700 ms\)\nfailed\n$/,
    );
    expect(Number(/last run (\d+) ms ago/.exec(stale.body)?.[1])).toBeGreaterThan(700);
    // The loop itself is not blocked: liveness (no checks of its own) still answers.
    expect((await get(`${url}/healthz`)).status).toBe(200);
    // Once the checks answer in time again, so does /readyz.
    slowMs = 0;
    const deadline = Date.now() + 6_000;
    let again = stale;
    while (Date.now() < deadline && again.status !== 200) {
      await new Promise((r) => setTimeout(r, 100));
      again = await get(`${url}/readyz`);
    }
    expect(again.status).toBe(200);
  });

  it('gives up after 5 restarts within a minute: logs an error and stops answering', async () => {
    const warnings: string[] = [];
    const errors: string[] = [];
    server = make({
      logger: {
        warn: (m: string) => warnings.push(m),
        error: (m: string) => errors.push(m),
      },
    });
    const url = await server.start();
    const s = server;
    /** Kills the probe thread; resolves with the next one once it answers (undefined if none came within 5 s). */
    const kill = async (): Promise<Worker | undefined> => {
      const dying = probeWorker(s);
      await dying?.terminate();
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline) {
        const next = probeWorker(s);
        if (next !== undefined && next !== dying) {
          const answer = await get(`${url}/healthz`).catch(() => undefined);
          if (answer?.status === 200) return next;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return undefined;
    };
    for (let i = 1; i <= 5; i++) {
      expect(await kill(), `restart ${String(i)}`).toBeDefined();
    }
    expect(warnings).toHaveLength(5);
    expect(errors).toEqual([]);
    const sixth = probeWorker(s);
    await sixth?.terminate();
    await new Promise((r) => setTimeout(r, 500));
    expect(probeWorker(s)).toBeUndefined();
    expect(errors).toEqual([
      'health probe thread exited (1) 5 times within a minute: /healthz and /readyz are no longer answered',
    ]);
    expect(warnings).toHaveLength(5);
    // Nobody listens any more: the kubelet's probes fail and it restarts the pod.
    await expect(get(`${url}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('passes /metrics and unknown paths to the main loop, which refuses clients that skip the probe thread', async () => {
    server = make();
    const url = await server.start();
    expect((await get(`${url}/metrics`)).status).toBe(200);
    expect((await get(`${url}/nope`)).status).toBe(404);
    const inner = (server as unknown as { server: { address(): { port: number } } }).server.address().port;
    const direct = await get(`http://127.0.0.1:${String(inner)}/metrics`);
    expect(direct.status).toBe(403);
  });

  it('refuses live-view streams past the cap on the probe thread itself, without passing them to the main loop', async () => {
    server = make({ debug: { history: new HistoryRecorder(), controllers: () => [] } });
    const url = await server.start();
    const port = Number(new URL(url).port);
    const opened: Socket[] = [];
    /** Opens a stream request; resolves with what the server sent once its head is in, or it closed, or 10 s passed. */
    const stream = (): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1');
        opened.push(socket);
        socket.on('error', () => undefined);
        socket.write('GET /debug/api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        let text = '';
        const done = (): void => {
          clearTimeout(timer);
          resolve(text);
        };
        const timer = setTimeout(done, 10_000);
        socket.on('data', (d: Buffer) => {
          text += d.toString();
          // A stream's head (it then stays open); a refusal is read to its end (the server closes).
          if (text.startsWith('HTTP/1.1 200 ') && text.includes('\r\n\r\n')) done();
        });
        socket.once('close', done);
      });
    /** What the main loop last told the probe thread: whether the streams are full. */
    const full = (): boolean =>
      (server as unknown as { probes: { heartbeat: BigInt64Array } }).probes.heartbeat[1] === 1n;
    try {
      const streaming = await Promise.all(Array.from({ length: DEFAULT_DEBUG_MAX_STREAMS }, stream));
      expect(streaming.every((t) => t.startsWith('HTTP/1.1 200 '))).toBe(true);
      await eventually(full, 'the main loop tells the probe thread the streams are full');
      const inner = (server as unknown as { server: import('node:http').Server }).server;
      let passedOn = 0;
      inner.on('request', () => (passedOn += 1));
      const refused = await Promise.all(Array.from({ length: 20 }, stream));
      for (const text of refused) {
        expect(text).toMatch(/^HTTP\/1\.1 503 /);
        expect(text.toLowerCase()).toContain('retry-after: 5');
        expect(text.toLowerCase()).toContain('connection: close');
        expect(text).toContain(`at most ${String(DEFAULT_DEBUG_MAX_STREAMS)} streams`);
      }
      expect(passedOn).toBe(0);
      // Once a stream leaves, a new one is passed on and served again.
      for (const s of opened.splice(0, 1)) s.destroy();
      await eventually(() => !full(), 'the main loop tells the probe thread a stream left');
      expect(await stream()).toMatch(/^HTTP\/1\.1 200 /);
      expect(passedOn).toBe(1);
    } finally {
      for (const s of opened) s.destroy();
    }
  });

  it('closes the connection of a stream client the main loop drops for not reading (its slot is free again)', async () => {
    // Before: the probe thread kept the client's connection (and what it had buffered) open after the main
    // loop dropped the stream, so clients that never read could pile up there while the cap let new ones in.
    const history = new HistoryRecorder({ maxObjects: 1_000 });
    server = make({ debug: { history, controllers: () => [] } });
    const url = await server.start();
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    let closed = false;
    socket.on('close', () => (closed = true));
    try {
      socket.write('GET /debug/api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      const head = await new Promise<string>((resolve) =>
        socket.once('data', (d: Buffer) => {
          resolve(d.toString());
        }),
      );
      expect(head).toMatch(/^HTTP\/1\.1 200 /);
      socket.pause(); // never reads again
      const streams = (): number => debugStreamsOf(history)?.size ?? 0;
      await eventually(() => streams() === 1, 'the main loop streams to it');
      // 200 objects with 2,000-character errors every 20 ms: ~400 KB a batch, past the client's bound.
      const error = 'x'.repeat(2_000);
      const feed = setInterval(() => {
        for (let i = 0; i < 200; i++) {
          history.record('c', `ns/o${String(i)}`, {
            startedAt: Date.now(),
            durationMs: 1,
            result: 'error',
            attempt: 0,
            deleting: false,
            error,
          });
        }
      }, 20);
      try {
        await eventually(() => streams() === 0, 'the main loop drops the stalled stream', 30_000);
      } finally {
        clearInterval(feed);
      }
      // The client reads what reached it, then finds its connection closed.
      socket.resume();
      await eventually(() => closed, 'the probe thread closes the client connection', 10_000);
    } finally {
      socket.destroy();
    }
  });

  it('gives back the memory a flood of stream clients left on the probe thread once they are gone (16 streamed and fed, 2,000 refused)', async () => {
    // Before: their objects and read buffers stayed on the thread's heap as garbage for good — idle again,
    // the thread allocates too little for V8 ever to collect them.
    const history = new HistoryRecorder();
    server = make({ debug: { history, controllers: () => [] } });
    const url = await server.start();
    const port = Number(new URL(url).port);
    const heapBefore = (await probeWorker(server)?.getHeapStatistics())?.total_heap_size ?? Number.NaN;
    const opened: Socket[] = [];
    const open = (): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1');
        opened.push(socket);
        socket.on('error', () => undefined);
        socket.write('GET /debug/api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        socket.once('data', (d: Buffer) => {
          socket.pause(); // never reads again
          resolve(d.toString().slice(9, 12));
        });
        socket.once('close', () => {
          resolve('closed');
        });
      });
    // 20 objects every 20 ms, as a busy operator's passes: the streams carry ~30 KB/s each.
    const feed = setInterval(() => {
      for (let i = 0; i < 20; i++) {
        history.record('c', `ns/o${String(i)}`, {
          startedAt: Date.now(),
          durationMs: 1,
          result: 'success',
          attempt: 0,
          deleting: false,
        });
      }
    }, 20);
    try {
      const statuses: string[] = [];
      for (let i = 0; i < 2_016; i += 96)
        statuses.push(...(await Promise.all(Array.from({ length: 96 }, open))));
      expect(statuses.filter((s) => s === '200')).toHaveLength(DEFAULT_DEBUG_MAX_STREAMS);
      expect(statuses.filter((s) => s === '503')).toHaveLength(2_016 - DEFAULT_DEBUG_MAX_STREAMS);
      await new Promise((r) => setTimeout(r, 2_000));
      for (const s of opened) s.destroy();
      await eventually(() => (debugStreamsOf(history)?.size ?? 0) === 0, 'the streams are gone');
      // Quiet for FLOOD_QUIET_MS (3 s): the thread collects what the clients left.
      await new Promise((r) => setTimeout(r, 4_000));
      const heap = await probeWorker(server)?.getHeapStatistics();
      const mib = (n: number | undefined): number => (n ?? Number.NaN) / 2 ** 20;
      console.log(
        `probe thread heap ${mib(heapBefore).toFixed(1)} MiB before, ${mib(heap?.total_heap_size).toFixed(1)} after`,
      );
      // Without the collection 17–20 MiB (12–16 used: the clients' garbage) for good; 14 MiB at start.
      expect(mib(heap?.total_heap_size)).toBeLessThan(12);
    } finally {
      clearInterval(feed);
      for (const s of opened) s.destroy();
    }
  });

  it('ends its thread on close, and serves everything on the main loop with probeThread: main', async () => {
    server = make();
    await server.start();
    const worker = probeWorker(server);
    const exited = new Promise<number>((resolve) => worker?.once('exit', resolve));
    await server.close();
    await exited;
    expect(worker?.threadId).toBe(-1);

    server = make({ probeThread: 'main' });
    const url = await server.start();
    expect(probeWorker(server)).toBeUndefined();
    expect(await get(`${url}/healthz?verbose`)).toEqual({ status: 200, body: 'ok\n' });
  });
});
