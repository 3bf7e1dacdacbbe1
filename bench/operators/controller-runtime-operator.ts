// Peer: the controller-runtime operator (bench/peers/controller-runtime, Go) in its own process, driven over
// stdin/stdout lines. Its CPU time and RSS come from the Go process itself (getrusage, /proc/self/status), not
// this wrapper. Two idioms: "tuned" (workloads 2, 3, 7) and "docs" (workload 9, as kubebuilder teaches; its zap
// log goes to RECONCILEKIT_BENCH_LOG when set).
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { BenchOperator, BenchOperatorOptions, OperatorUsage } from './bench-operator.js';

/** The controller-runtime peer behind the bench operator shape. */
export async function controllerRuntimeOperator(
  options: BenchOperatorOptions,
  idiom: 'tuned' | 'docs' = 'tuned',
): Promise<BenchOperator> {
  const binary = process.env.RECONCILEKIT_BENCH_CR_PEER;
  if (binary === undefined || binary === '') {
    throw new Error(
      'RECONCILEKIT_BENCH_CR_PEER is not set: the driver builds the controller-runtime peer first',
    );
  }
  const logFile = process.env.RECONCILEKIT_BENCH_LOG;
  const stderr: 'inherit' | number =
    logFile === undefined || logFile === '' ? 'inherit' : openSync(logFile, 'a');
  const spawnedAtMs = performance.timeOrigin + performance.now();
  const proc = spawn(
    binary,
    [
      `--kubeconfig=${options.kubeconfigPath}`,
      `--namespace=${options.namespace}`,
      `--workers=${String(options.workers)}`,
      `--idiom=${idiom}`,
      ...(options.autostart === true ? ['--autostart'] : []),
    ],
    { stdio: ['pipe', 'pipe', stderr] },
  );
  if (proc.stdin === null || proc.stdout === null) throw new Error('controller-runtime peer: no stdio pipes');
  const stdin = proc.stdin;
  const lines = createInterface({ input: proc.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
  const next = (): Promise<string> =>
    new Promise((resolve, reject) => {
      waiting.push(resolve);
      void exited.then((code) => {
        reject(new Error(`controller-runtime peer exited (code ${String(code)})`));
      });
    });
  const ask = async (command: string): Promise<string> => {
    const answer = next();
    stdin.write(`${command}\n`);
    return answer;
  };
  const loaded = await next();
  if (loaded !== 'loaded') throw new Error(`controller-runtime peer: unexpected "${loaded}"`);
  let last: OperatorUsage = { calls: 0, errors: 0, cpuMs: 0, maxRssKiB: 0 };
  const usage = async (): Promise<OperatorUsage> => {
    last = JSON.parse(await ask('count')) as OperatorUsage;
    return last;
  };
  return {
    spawnedAtMs,
    start: async () => {
      await ask('start');
    },
    stop: async () => {
      stdin.write('stop\n');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2_000))]);
      proc.kill('SIGKILL');
    },
    calls: () => last.calls,
    errors: async () => (await usage()).errors,
    usage,
  };
}
