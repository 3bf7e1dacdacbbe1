// The controller-runtime peer (bench/peers/controller-runtime, a Go module): built once per `make bench` by
// its build.sh into ~/.cache/reconcilekit/bench-peers/ (reused while its sources are unchanged). Without Go
// the peer rows are skipped and the reason is printed once.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { progress } from './progress.js';

/** The peer's build script, relative to the repository root (`make bench` runs there). */
export const CONTROLLER_RUNTIME_BUILD = 'bench/peers/controller-runtime/build.sh';

let cached: { path: string | undefined } | undefined;

/** Path of the built peer binary, building it on first use; undefined (reason printed) when it cannot be. */
export function controllerRuntimePeer(): string | undefined {
  if (cached !== undefined) return cached.path;
  const fromEnv = process.env.RECONCILEKIT_BENCH_CR_PEER;
  if (fromEnv !== undefined && fromEnv !== '') {
    cached = { path: fromEnv };
    return fromEnv;
  }
  const script = resolve(CONTROLLER_RUNTIME_BUILD);
  if (!existsSync(script)) {
    progress(
      `controller-runtime peer skipped: ${script} not found (run make bench from the repository root)`,
    );
    cached = { path: undefined };
    return undefined;
  }
  const run = spawnSync(script, [], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const path = run.stdout.trim().split('\n').pop();
  if (run.status !== 0 || path === undefined || path === '') {
    const reason = run.stderr.trim().split('\n').slice(-3).join(' | ');
    progress(`controller-runtime peer skipped: ${reason || `build exited with ${String(run.status)}`}`);
    cached = { path: undefined };
    return undefined;
  }
  if (run.stderr.trim() !== '') progress(run.stderr.trim());
  process.env.RECONCILEKIT_BENCH_CR_PEER = path; // the operator children find it there
  cached = { path };
  return path;
}
