import { spawn, type ChildProcess } from 'node:child_process';

/** Lines of a process's output kept for error messages. */
export const DEFAULT_OUTPUT_TAIL_LINES = 40;
/** How long a stopped process gets between SIGTERM and SIGKILL. */
export const DEFAULT_STOP_GRACE_MS = 5_000;

// A watchdog shell around the binary: it reads its stdin (a pipe from this Node process) and, when that
// pipe closes — on stop(), and also when this process dies in any way, even SIGKILL — it sends SIGTERM,
// waits up to the grace period, then SIGKILL. So a test run that crashes leaves no etcd behind.
const WATCHDOG = `
exec 3<&0
"$@" &
child=$!
(
  while read -r _ <&3; do :; done
  kill -TERM "$child" 2>/dev/null
  i=0
  while kill -0 "$child" 2>/dev/null; do
    i=$((i + 1))
    if [ "$i" -gt "$RK_GRACE_TICKS" ]; then kill -KILL "$child" 2>/dev/null; break; fi
    sleep 0.1
  done
) &
wait "$child"
`;

/** A child process that cannot outlive this one, with the tail of its output kept. */
export class SupervisedProcess {
  readonly name: string;
  private readonly child: ChildProcess;
  private readonly tail: string[] = [];
  /** Resolves with the exit code (or signal name) when the process has ended. */
  readonly exited: Promise<number | string>;
  private done = false;

  constructor(name: string, command: string, args: readonly string[], graceMs = DEFAULT_STOP_GRACE_MS) {
    this.name = name;
    this.child = spawn('/bin/sh', ['-c', WATCHDOG, `${name}-watchdog`, command, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, RK_GRACE_TICKS: String(Math.ceil(graceMs / 100)) },
    });
    const keep = (chunk: Buffer): void => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        this.tail.push(line);
        if (this.tail.length > DEFAULT_OUTPUT_TAIL_LINES) this.tail.shift();
      }
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    this.child.stdin?.on('error', () => undefined); // EPIPE after the process ended
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        this.done = true;
        resolve(code ?? signal ?? 'unknown');
      });
      this.child.on('error', (err) => {
        this.done = true;
        this.tail.push(String(err));
        resolve('spawn-error');
      });
    });
  }

  /** Whether the process has ended. */
  get ended(): boolean {
    return this.done;
  }

  /** The last lines it printed (stdout and stderr), for error messages. */
  output(): string {
    return this.tail.join('\n');
  }

  /** Stops the process (SIGTERM, SIGKILL after the grace period) and resolves when it has ended. */
  async stop(): Promise<void> {
    if (!this.done) this.child.stdin?.end();
    await this.exited;
  }
}
