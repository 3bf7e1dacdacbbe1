// Part of workload 5: the restart a user sees — `reconcilekit apiserver --data <file>` spawned on an existing
// data file, timed from spawn to the first 200 from /healthz (process start, module loading, journal replay).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

/** The CLI's entry module in the build the bench runs from. */
const CLI_MAIN = fileURLToPath(new URL('../../lib/cli/main.js', import.meta.url));

/** Starts the CLI's API server on `dataFile`, waits for /healthz, stops it; returns spawn → healthy ms. */
export async function timeCliRestart(dataFile: string): Promise<number> {
  const started = performance.now();
  const script =
    `const { main } = await import(${JSON.stringify(CLI_MAIN)});` +
    `process.exitCode = await main(['apiserver', '--port', '0', '--data', ${JSON.stringify(dataFile)}]);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (\S+)/.exec(out);
        if (m?.[1] !== undefined) resolve(m[1]);
      });
      child.once('exit', (code) => {
        reject(new Error(`reconcilekit apiserver exited ${String(code)}: ${err}`));
      });
    });
    for (;;) {
      const res = await fetch(`${url}/healthz`).catch(() => undefined);
      if (res?.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return performance.now() - started;
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}
