// The kube-apiserver backend's bad-input paths (no real binaries needed: fake ones that fail or hang), the
// watchdog that leaves no orphan, and — when KUBEBUILDER_ASSETS is set (make test-real) — a real start.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import {
  isEnvtestAssetsError,
  isKubeApiServerStartError,
  startKubeApiServer,
  startTestEnvironment,
} from '../../lib/testing/index.js';

const scratch = mkdtempSync(join(tmpdir(), 'rk-backend-spec-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function fakeAssets(name: string, etcd: string, apiServer = '#!/bin/sh\nexit 3\n'): string {
  const dir = join(scratch, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'etcd'), etcd);
  writeFileSync(join(dir, 'kube-apiserver'), apiServer);
  chmodSync(join(dir, 'etcd'), 0o755);
  chmodSync(join(dir, 'kube-apiserver'), 0o755);
  return dir;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function eventually(check: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

function scratchDirs(): string[] {
  return readdirSync(tmpdir()).filter((n) => n.startsWith('reconcilekit-kube-apiserver-'));
}

describe('kube-apiserver backend: bad input', () => {
  it('says how to get the binaries when KUBEBUILDER_ASSETS is unset, not a directory, or lacks them', async () => {
    const unset = await startKubeApiServer({ assetsDir: '' }).catch((e: unknown) => e);
    expect(isEnvtestAssetsError(unset)).toBe(true);
    expect(String(unset)).toMatch(/KUBEBUILDER_ASSETS is not set.*make envtest-assets/);
    const missing = await startKubeApiServer({ assetsDir: join(scratch, 'nope') }).catch((e: unknown) => e);
    expect(String(missing)).toMatch(/is not a directory/);
    const empty = join(scratch, 'empty');
    mkdirSync(empty, { recursive: true });
    const lacking = await startKubeApiServer({ assetsDir: empty }).catch((e: unknown) => e);
    expect(isEnvtestAssetsError(lacking)).toBe(true);
    expect(String(lacking)).toContain(`${join(empty, 'etcd')} is missing or not executable`);
    const viaEnv = await startTestEnvironment({
      backend: 'kube-apiserver',
      kubeApiServer: { assetsDir: empty },
    }).catch((e: unknown) => e);
    expect(isEnvtestAssetsError(viaEnv)).toBe(true);
  });

  it('reports a binary that fails to start with its output, and leaves nothing behind', async () => {
    const before = scratchDirs().length;
    const dir = fakeAssets('failing', '#!/bin/sh\necho "etcd: unknown flag --bogus" >&2\nexit 1\n');
    const err = await startKubeApiServer({ assetsDir: dir, startTimeoutMs: 20_000 }).catch((e: unknown) => e);
    expect(isKubeApiServerStartError(err)).toBe(true);
    expect(String(err)).toContain('etcd exited during start-up');
    expect(String(err)).toContain('unknown flag --bogus');
    expect(scratchDirs().length).toBe(before);
  });

  it('names a fixed port that is in use', async () => {
    const busy: Server = createServer();
    await new Promise<void>((ok) => busy.listen(0, '127.0.0.1', ok));
    const address = busy.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const dir = fakeAssets('ports', '#!/bin/sh\nexit 1\n');
      const err = await startKubeApiServer({ assetsDir: dir, ports: { apiServer: port } }).catch(
        (e: unknown) => e,
      );
      expect(isKubeApiServerStartError(err)).toBe(true);
      expect(String(err)).toContain(`port ${String(port)} on 127.0.0.1 is in use`);
    } finally {
      busy.close();
    }
  });

  it('stops a hanging binary on abort, and its watchdog kills it when the parent process is SIGKILLed', async () => {
    const pidFile = join(scratch, 'hang.pid');
    const dir = fakeAssets('hang', `#!/bin/sh\necho $$ > ${pidFile}\nexec sleep 300\n`);
    const controller = new AbortController();
    const starting = startKubeApiServer({ assetsDir: dir, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect(await eventually(() => existsSync(pidFile))).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    controller.abort();
    await starting;
    expect(await eventually(() => !alive(pid))).toBe(true);

    // A separate Node process starts the backend and is SIGKILLed: no chance to clean up.
    rmSync(pidFile, { force: true });
    const module = resolve(import.meta.dirname, '../../dist/lib/testing/index.js');
    const parent = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import(${JSON.stringify(module)}).then((t) => t.startKubeApiServer({ assetsDir: ${JSON.stringify(dir)} }))`,
      ],
      { stdio: 'ignore' },
    );
    expect(
      await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 45_000),
    ).toBe(true);
    const orphan = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(orphan)).toBe(true);
    parent.kill('SIGKILL');
    expect(await eventually(() => !alive(orphan))).toBe(true);
  }, 90_000);
});

// A real start (make test-real sets KUBEBUILDER_ASSETS): restartApiServer keeps etcd and the port, and a
// watch resumed from before the restart gets 410 Expired, which is what makes an informer relist.
describe.skipIf(!process.env.KUBEBUILDER_ASSETS)('kube-apiserver backend: restartApiServer', () => {
  it('restarts kube-apiserver on the same port with the data kept; an old watch resourceVersion is Expired', async () => {
    const server = await startKubeApiServer();
    try {
      const kc = new KubeConfig();
      kc.loadFromString(server.kubeconfig);
      const core = kc.makeApiClient(CoreV1Api);
      await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'before-restart' }, data: { x: '1' } },
      });
      const listed = await core.listNamespacedConfigMap({ namespace: 'default' });
      const oldVersion = listed.metadata?.resourceVersion ?? '';
      // Writes elsewhere move etcd's revision past the list, so the restarted watch cache starts after it.
      await core.createNamespacedConfigMap({
        namespace: 'kube-system',
        body: { metadata: { name: 'moves-rv' } },
      });
      await server.restartApiServer();
      const kept = await core.readNamespacedConfigMap({ namespace: 'default', name: 'before-restart' });
      expect(kept.data).toEqual({ x: '1' });
      const status = await new Promise<{ type: string; object: { code?: number; reason?: string } }>(
        (resolveEvent, reject) => {
          void new Watch(kc)
            .watch(
              '/api/v1/namespaces/default/configmaps',
              { resourceVersion: oldVersion },
              (type, object) => {
                resolveEvent({ type, object: object as { code?: number; reason?: string } });
              },
              (err: unknown) => {
                if (err instanceof Error) reject(err);
              },
            )
            .catch(reject);
        },
      );
      expect(status.type).toBe('ERROR');
      expect(status.object).toMatchObject({ code: 410, reason: 'Expired' });
    } finally {
      await server.close();
    }
    await expect(server.restartApiServer()).rejects.toThrow(/closed/);
  }, 120_000);
});
