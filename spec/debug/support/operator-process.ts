// The operator of the stalled-stream attack as a process of its own (spec/debug/fixtures/live-view-operator.ts
// on the built package), and the windows the soak and the real-backend spec measure it in: reconciles, the
// health server's /healthz on fresh connections, and the process's memory.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { probe } from './stream-flood.js';

/** The fixture, relative to the repository (the specs run there). */
export const LIVE_VIEW_OPERATOR_FIXTURE = 'spec/debug/fixtures/live-view-operator.ts';

/** A fixture process: its JSON lines in order, and its `stats` answer. */
export interface FixtureProcess {
  child: ChildProcess;
  next(): Promise<Record<string, number | string>>;
  stats(): Promise<Record<string, number>>;
  /** Writes one command line to its stdin and returns its answer. */
  ask(command: string): Promise<Record<string, number | string>>;
}

/** Starts `node <fixture> ...args` (stdout read as JSON lines, stderr passed through). */
export function startFixture(args: string[], fixture = LIVE_VIEW_OPERATOR_FIXTURE): FixtureProcess {
  const child = spawn(process.execPath, [fixture, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let exited: Error | undefined;
  lines.on('line', (line) => {
    const w = waiting.shift();
    if (w === undefined) queue.push(line);
    else w(line);
  });
  child.on('exit', (code, signal) => {
    exited = new Error(`${fixture} ${args.join(' ')} exited (${String(code ?? signal)})`);
  });
  const next = async (): Promise<Record<string, number | string>> => {
    const queued = queue.shift();
    if (queued === undefined && exited !== undefined) throw exited;
    const line =
      queued ??
      (await new Promise<string>((resolve, reject) => {
        waiting.push(resolve);
        child.once('exit', () => {
          reject(exited ?? new Error('exited'));
        });
      }));
    return JSON.parse(line) as Record<string, number | string>;
  };
  const ask = async (command: string): Promise<Record<string, number | string>> => {
    child.stdin.write(`${command}\n`);
    return next();
  };
  return {
    child,
    next,
    ask,
    stats: async () => (await ask('stats')) as Record<string, number>,
  };
}

/** One measuring window on the operator process. */
export interface OperatorWindow {
  reconciles: number;
  /** /healthz times in ms, one every 100 ms on a fresh connection (Infinity: failed or over 10 s). */
  probes: number[];
  rssMiB: number;
  /** The operator's `stats` at the end of the window. */
  memory: Record<string, number>;
}

/** Probes `${healthUrl}/healthz` every 100 ms for `ms`; the operator's reconciles meanwhile and its memory after. */
export async function operatorWindow(
  operator: FixtureProcess,
  healthUrl: string,
  ms: number,
): Promise<OperatorWindow> {
  const before = await operator.stats();
  const probes: Promise<number>[] = [];
  const until = Date.now() + ms;
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
