#!/usr/bin/env node
// `make test-real`: starts one etcd + kube-apiserver from KUBEBUILDER_ASSETS (via the built
// reconcilekit/testing), points the suites at it (KUBECONFIG, RECONCILEKIT_E2E=1,
// RECONCILEKIT_TEST_BACKEND=kubeconfig), runs spec/real/vitest.real.config.ts, stops both processes.
// Extra arguments go to vitest (e.g. a spec path). Prints the time each phase took.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const { startKubeApiServer } = await import(join(root, 'dist/lib/testing/index.js'));
const started = Date.now();
const log = (text) => process.stderr.write(`[test-real] ${text}\n`);
log(`starting etcd + kube-apiserver from ${process.env.KUBEBUILDER_ASSETS ?? '(KUBEBUILDER_ASSETS unset)'}`);
let server;
try {
  server = await startKubeApiServer();
} catch (e) {
  log(String(e instanceof Error ? e.message : e));
  process.exit(2);
}
log(`kube-apiserver ready at ${server.url} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
const dir = mkdtempSync(join(tmpdir(), 'reconcilekit-test-real-'));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, server.kubeconfig, { mode: 0o600 });
const child = spawn(
  process.execPath,
  [
    join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--config',
    'spec/real/vitest.real.config.ts',
    ...process.argv.slice(2),
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      KUBECONFIG: kubeconfig,
      RECONCILEKIT_E2E: '1',
      RECONCILEKIT_TEST_BACKEND: 'kubeconfig',
    },
  },
);
let stopping = false;
const stop = async (code) => {
  if (stopping) return;
  stopping = true;
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(code);
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    child.kill(signal);
    void stop(130);
  });
}
child.on('exit', (code) => void stop(code ?? 1));
