import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../../..');

export interface DurableDataFigures {
  kills: number;
  /** Writes answered 2xx before a kill (creates, updates and deletes). */
  acknowledgedWrites: number;
  /** Acknowledged writes missing after a restart (an object gone, or an older version of it). */
  lostWrites: number;
  /** Acknowledged deletions undone after a restart. */
  resurrected: number;
  /** Time from spawn to the first 200 from /healthz, per restart (ms). */
  restartMsMax: number;
  restartMsMedian: number;
  /** Mode bits of the data file and its log segments, e.g. ['600']. */
  fileModes: string[];
  problems: string[];
}

interface Server {
  child: ChildProcess;
  url: string;
}

async function startServer(dataFile: string, port: number): Promise<Server & { startMs: number }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin/reconcilekit.js'), 'apiserver', '--port', String(port), '--data', dataFile],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((ok, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m?.[1]) ok(m[1]);
    });
    child.once('exit', (code) => {
      fail(new Error(`apiserver exited ${String(code)}: ${err}`));
    });
  });
  for (;;) {
    const res = await fetch(`${url}/healthz`).catch(() => undefined);
    if (res?.status === 200) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return { child, url, startMs: performance.now() - started };
}

type Expected = { state: 'present'; value: string } | { state: 'deleted' };

/**
 * SIGKILL the `--data` server under a concurrent write load, again and again; after every restart, every
 * write that was answered 2xx before the kill must be there (and every acknowledged delete stay gone).
 */
export async function runDurableData(options: {
  kills: number;
  writers: number;
  loadMs: [number, number];
  /** Writes each round must have acknowledged before its kill (a loaded machine writes slowly). */
  minAcksPerRound?: number;
}): Promise<DurableDataFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'rk-durable-'));
  const dataFile = join(dir, 'state.json');
  const expected = new Map<string, Expected>();
  const figures: DurableDataFigures = {
    kills: 0,
    acknowledgedWrites: 0,
    lostWrites: 0,
    resurrected: 0,
    restartMsMax: 0,
    restartMsMedian: 0,
    fileModes: [],
    problems: [],
  };
  const restartMs: number[] = [];
  let server = await startServer(dataFile, 0);
  const port = Number(new URL(server.url).port);
  let counter = 0;
  const path = '/api/v1/namespaces/default/configmaps';
  try {
    for (let round = 0; round < options.kills; round++) {
      let running = true;
      const base = server.url;
      const writer = async (w: number): Promise<void> => {
        while (running) {
          const n = counter++;
          const name = `cm-${round}-${w}-${n % 40}`;
          const value = `v${n}`;
          const current = expected.get(name);
          let res: Response | undefined;
          try {
            if (current?.state === 'present' && n % 5 === 0) {
              res = await fetch(`${base}${path}/${name}`, { method: 'DELETE' });
              if (res.status === 200) {
                expected.set(name, { state: 'deleted' });
                figures.acknowledgedWrites++;
              }
            } else if (current?.state === 'present') {
              res = await fetch(`${base}${path}/${name}`, {
                method: 'PUT',
                headers: { 'Content-Type': 'application/json' },
                body: JSON.stringify({ metadata: { name }, data: { value } }),
              });
              if (res.status === 200) {
                expected.set(name, { state: 'present', value });
                figures.acknowledgedWrites++;
              }
            } else {
              res = await fetch(`${base}${path}`, {
                method: 'POST',
                headers: { 'Content-Type': 'application/json' },
                body: JSON.stringify({ metadata: { name }, data: { value } }),
              });
              if (res.status === 201) {
                expected.set(name, { state: 'present', value });
                figures.acknowledgedWrites++;
              }
            }
            await res.arrayBuffer();
          } catch {
            // Cut off by the kill: its outcome is unknown, so the name is no longer checked.
            expected.delete(name);
            return;
          }
        }
      };
      const load = Promise.all(Array.from({ length: options.writers }, (_, w) => writer(w)));
      const [min, max] = options.loadMs;
      const roundStart = figures.acknowledgedWrites;
      await new Promise((r) => setTimeout(r, min + Math.random() * (max - min)));
      const enough = Date.now() + 20_000;
      while (figures.acknowledgedWrites - roundStart < (options.minAcksPerRound ?? 0) && Date.now() < enough)
        await new Promise((r) => setTimeout(r, 10));
      server.child.kill('SIGKILL');
      await new Promise((r) => server.child.once('exit', r));
      figures.kills++;
      running = false;
      await load;
      const next = await startServer(dataFile, port);
      restartMs.push(next.startMs);
      server = next;
      const list = (await (await fetch(`${server.url}${path}`)).json()) as {
        items: { metadata: { name: string }; data?: { value?: string } }[];
      };
      const found = new Map(list.items.map((i) => [i.metadata.name, i.data?.value]));
      for (const [name, want] of expected) {
        if (want.state === 'present' && found.get(name) !== want.value) {
          figures.lostWrites++;
          figures.problems.push(
            `kill ${round + 1}: ${name} should be ${want.value}, found ${String(found.get(name))}`,
          );
        } else if (want.state === 'deleted' && found.has(name)) {
          figures.resurrected++;
          figures.problems.push(`kill ${round + 1}: ${name} was deleted, found it again`);
        }
      }
    }
    // The files' modes once the server has stopped: while it runs it rotates and removes log segments.
    if (server.child.exitCode === null && server.child.signalCode === null) {
      const exited = new Promise((r) => server.child.once('exit', r));
      server.child.kill('SIGKILL');
      await exited;
    }
    for (const name of readdirSync(dir)) {
      if (name.startsWith('state.json')) {
        const mode = (statSync(join(dir, name)).mode & 0o777).toString(8);
        if (!figures.fileModes.includes(mode)) figures.fileModes.push(mode);
      }
    }
  } finally {
    server.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
  restartMs.sort((a, b) => a - b);
  figures.restartMsMax = Math.round(restartMs[restartMs.length - 1] ?? 0);
  figures.restartMsMedian = Math.round(restartMs[Math.floor(restartMs.length / 2)] ?? 0);
  return figures;
}
