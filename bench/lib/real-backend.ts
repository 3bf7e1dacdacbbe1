// The real backend of the bench: etcd + kube-apiserver built by envtest/build.sh (make envtest-assets),
// started once per `make bench` on loopback ports with reconcilekit/testing's startKubeApiServer; workloads
// 2–5 then also run against it, as against a KUBECONFIG cluster. Without the binaries the reason is printed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startKubeApiServer } from 'reconcilekit/testing';
import { progress } from './progress.js';

/** The envtest build script, relative to the repository root. */
export const ENVTEST_BUILD = 'envtest/build.sh';

/** A running real backend and its kubeconfig file. */
export interface RealBackend {
  kubeconfigPath: string;
  /** Heading of its tables, e.g. "Real kube-apiserver (…/1.34.4-etcd-3.6.4-…)". */
  title: string;
  /** Seconds etcd + kube-apiserver took to become ready. */
  startSeconds: number;
  /** Stops kube-apiserver and starts it again on the same port, etcd kept (watches then get 410 Gone). */
  restartApiServer(): Promise<void>;
  close(): Promise<void>;
}

/** The assets directory: $KUBEBUILDER_ASSETS, else what `envtest/build.sh --print` names (no build). */
export function realBackendAssets(): { dir: string } | { reason: string } {
  const env = process.env.KUBEBUILDER_ASSETS;
  if (env !== undefined && env !== '') return { dir: env };
  const script = resolve(ENVTEST_BUILD);
  if (!existsSync(script)) return { reason: `${script} not found` };
  const run = spawnSync(script, ['--print'], { encoding: 'utf8' });
  const dir = run.stdout.trim().split('\n').pop();
  if (run.status !== 0 || dir === undefined || dir === '') {
    return { reason: 'kube-apiserver and etcd are not built yet (make envtest-assets, 10-20 minutes cold)' };
  }
  return { dir };
}

/** Starts the real backend, or prints why not and returns undefined. */
export async function startRealBackend(): Promise<RealBackend | undefined> {
  const assets = realBackendAssets();
  if ('reason' in assets) {
    progress(`real kube-apiserver rows skipped: ${assets.reason}`);
    return undefined;
  }
  const started = performance.now();
  const server = await startKubeApiServer({ assetsDir: assets.dir });
  const startSeconds = (performance.now() - started) / 1000;
  const dir = mkdtempSync(join(tmpdir(), 'rk-bench-real-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, server.kubeconfig, { mode: 0o600 });
  const version = assets.dir.split('/').pop() ?? assets.dir;
  progress(`real kube-apiserver ${version} ready at ${server.url} in ${startSeconds.toFixed(1)} s`);
  return {
    kubeconfigPath,
    title: `Real kube-apiserver + etcd (${version}, TLS, loopback)`,
    startSeconds,
    restartApiServer: () => server.restartApiServer(),
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
