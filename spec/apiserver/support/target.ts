// Where the apiserver specs run: the embedded server by default, or the cluster named by KUBECONFIG
// when RECONCILEKIT_E2E=1 (`make test-e2e`), so the same checks prove fidelity against a real server.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../../../lib/apiserver/index.js';

export const E2E = process.env.RECONCILEKIT_E2E === '1' && (process.env.KUBECONFIG ?? '') !== '';

export interface Target {
  /** Kubeconfig file for kubectl and client-node. */
  kubeconfigPath: string;
  /** Kubeconfig YAML. */
  kubeconfig: string;
  /** The embedded server (undefined against a real cluster). */
  server?: ApiServer;
  /** Base URL for raw HTTP (embedded only). */
  url: string;
  dir: string;
  close(): Promise<void>;
}

/** Starts an embedded server (or points at the E2E cluster) with a private temp dir. */
export async function startTarget(options: ApiServerOptions = {}): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'rk-apiserver-'));
  if (E2E) {
    const path = process.env.KUBECONFIG ?? '';
    return {
      kubeconfigPath: path,
      kubeconfig: readFileSync(path, 'utf8'),
      url: '',
      dir,
      close: () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    };
  }
  const server = await startApiServer(options);
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, server.kubeconfig);
  return {
    kubeconfigPath,
    kubeconfig: server.kubeconfig,
    server,
    url: server.url,
    dir,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real kubectl against the target (private discovery cache, no color). */
export function kubectl(
  target: Target,
  args: string[],
  input?: string,
  timeoutMs = 20_000,
  env: Record<string, string> = {},
): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      'kubectl',
      ['--kubeconfig', target.kubeconfigPath, '--cache-dir', join(target.dir, 'cache'), ...args],
      { timeout: timeoutMs, env: { ...process.env, ...env, KUBECONFIG: target.kubeconfigPath } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** A name unique within this run (tests share one server per file). */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Polls `check` until it returns true or `timeoutMs` passes. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
