// A node child process spoken to over IPC: the embedded API server and each operator under test run in
// their own process, so their CPU time, heap and GC pauses are not mixed with the driver's.
import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A message between the driver and a child: a type tag plus fields. */
export interface ChildMessage {
  type: string;
  [field: string]: unknown;
}

/** Options of a child process. */
export interface ChildOptions {
  /** Extra environment variables (merged over the driver's). */
  env?: Record<string, string>;
  /** Extra node flags, e.g. --expose-gc or --cpu-prof. */
  execArgv?: string[];
  /** The child's stdout and stderr go to this file (appended) instead of the driver's. */
  logFile?: string;
}

/** Handle of one forked child. */
export class Child {
  private readonly inbox: ChildMessage[] = [];
  private readonly waiters: { type: string; resolve: (m: ChildMessage) => void }[] = [];
  readonly exited: Promise<number | null>;

  private constructor(private readonly proc: ChildProcess) {
    proc.on('message', (raw) => {
      const message = raw as ChildMessage;
      const index = this.waiters.findIndex((w) => w.type === message.type);
      if (index >= 0) {
        const [waiter] = this.waiters.splice(index, 1);
        waiter?.resolve(message);
      } else this.inbox.push(message);
    });
    this.exited = new Promise((resolve) =>
      proc.on('exit', (code) => {
        resolve(code);
      }),
    );
  }

  /** Forks a bench module (path relative to dist/bench, e.g. "operators/operator-child.js"). */
  static fork(modulePath: string, args: string[], options: ChildOptions = {}): Child {
    const file = fileURLToPath(new URL(`../${modulePath}`, import.meta.url));
    const log = options.logFile === undefined ? undefined : openSync(options.logFile, 'a');
    const proc = fork(file, args, {
      env: { ...process.env, ...(options.env ?? {}) },
      execArgv: options.execArgv ?? [],
      stdio: ['ignore', log ?? 'inherit', log ?? 'inherit', 'ipc'],
    });
    if (log !== undefined) closeSync(log); // the child holds its own copy
    return new Child(proc);
  }

  /** Process id. */
  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** Sends a message. */
  send(message: ChildMessage): void {
    this.proc.send(message);
  }

  /** Waits for the next message of a type; rejects on timeout or if the child exits first. */
  next(type: string, timeoutMs = 120_000): Promise<ChildMessage> {
    const index = this.inbox.findIndex((m) => m.type === type);
    if (index >= 0) return Promise.resolve(this.inbox.splice(index, 1)[0]!);
    return new Promise<ChildMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`child ${this.pid}: no "${type}" message within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        type,
        resolve: (m: ChildMessage) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      this.waiters.push(waiter);
      void this.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`child ${this.pid} exited (code ${code}) before sending "${type}"`));
      });
    });
  }

  /** Sends a request and waits for the answer of the same type. */
  async ask(message: ChildMessage, timeoutMs?: number): Promise<ChildMessage> {
    this.send(message);
    return this.next(message.type, timeoutMs);
  }

  /** Asks the child to stop; kills it if it has not exited within graceMs. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    if (this.proc.connected) this.proc.send({ type: 'stop' });
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/** User + system CPU time of this process so far, in ms. */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** In a child: sends a message to the driver. */
export function reply(message: ChildMessage): void {
  process.send?.(message);
}

/** In a child: calls handler for every message from the driver. */
export function onDriverMessage(handler: (message: ChildMessage) => void | Promise<void>): void {
  // A driver that dies (Ctrl-C, crash) takes its children with it.
  process.on('disconnect', () => process.exit(0));
  process.on('message', (raw) => {
    void Promise.resolve(handler(raw as ChildMessage)).catch((err: unknown) => {
      process.stderr.write(`bench child: ${String(err)}\n`);
      process.exit(1);
    });
  });
}
