import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from 'reconcilekit';

/** The line main.ts logs once the Framework started (caches synced, workers running). */
const RUNNING_MESSAGE = 'website operator running';

/** Options of {@link startOperatorProcess}. */
export interface OperatorProcessOptions {
  /** Kubeconfig file the operator connects with. */
  kubeconfigPath: string;
  /** Command-line flags for main.js. */
  args: readonly string[];
  /** File receiving the operator's JSON log lines. */
  logFile: string;
  /** Give up waiting for the operator to run after this long. */
  startTimeoutMs: number;
}

/** The example operator (main.js) running as a child process, exactly as a user would start it. */
export class OperatorProcess {
  private exited: Promise<number | null>;

  constructor(
    private readonly child: ChildProcess,
    private readonly logFile: string,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code) => {
        resolve(code);
      });
    });
  }

  /** Process id of the operator. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last `lines` lines of the operator's log. */
  logTail(lines = 15): string {
    return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  }

  /** Waits until the operator logged that it runs; rejects (with its log tail) if it exits or takes too long. */
  async waitUntilRunning(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exitCode: number | null | undefined;
    void this.exited.then((code) => (exitCode = code));
    while (Date.now() < deadline) {
      if (readFileSync(this.logFile, 'utf8').includes(RUNNING_MESSAGE)) return;
      if (exitCode !== undefined) break;
      await sleep(100);
    }
    const why =
      exitCode !== undefined
        ? `exited with code ${String(exitCode)}`
        : `did not start within ${timeoutMs} ms`;
    throw new Error(`the operator ${why}; its log ends with:\n${this.logTail()}`);
  }

  /** SIGTERM (graceful: in-flight reconciles finish, the Lease is released), SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

/** Starts `main.js` (next to this module) with `options.args` and waits until it runs. */
export async function startOperatorProcess(options: OperatorProcessOptions): Promise<OperatorProcess> {
  const main = join(dirname(fileURLToPath(import.meta.url)), 'main.js');
  const log = openSync(options.logFile, 'w');
  try {
    const child = spawn(process.execPath, [main, ...options.args], {
      env: { ...process.env, KUBECONFIG: options.kubeconfigPath },
      stdio: ['ignore', log, log],
    });
    const operator = new OperatorProcess(child, options.logFile);
    try {
      await operator.waitUntilRunning(options.startTimeoutMs);
    } catch (e) {
      await operator.stop(1_000);
      throw e;
    }
    return operator;
  } finally {
    closeSync(log);
  }
}
