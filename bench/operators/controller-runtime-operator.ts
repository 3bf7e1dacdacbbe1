// Peer: the controller-runtime operator (bench/peers/controller-runtime, Go) in its own process, driven over
// stdin/stdout lines. Its CPU time and peak RSS come from the Go process itself (getrusage), not this wrapper.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { BenchOperator, BenchOperatorOptions, OperatorUsage } from './bench-operator.js';

/** The controller-runtime peer behind the bench operator shape. */
export async function controllerRuntimeOperator(options: BenchOperatorOptions): Promise<BenchOperator> {
  const binary = process.env.RECONCILEKIT_BENCH_CR_PEER;
  if (binary === undefined || binary === '') {
    throw new Error(
      'RECONCILEKIT_BENCH_CR_PEER is not set: the driver builds the controller-runtime peer first',
    );
  }
  const proc = spawn(
    binary,
    [
      `--kubeconfig=${options.kubeconfigPath}`,
      `--namespace=${options.namespace}`,
      `--workers=${String(options.workers)}`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
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
    proc.stdin.write(`${command}\n`);
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
    start: async () => {
      await ask('start');
    },
    stop: async () => {
      proc.stdin.write('stop\n');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2_000))]);
      proc.kill('SIGKILL');
    },
    calls: () => last.calls,
    errors: async () => (await usage()).errors,
    usage,
  };
}
