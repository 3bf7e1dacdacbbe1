// `node bin/reconcilekit.js apiserver …` as a user runs it: prints its URL, writes a kubeconfig that
// kubectl uses, and exits 0 on SIGTERM. Needs the build (`make test` builds first; built here if absent).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseApiServerArgs } from '../../lib/cli/apiserver-command.js';
import { kubectl } from '../apiserver/support/target.js';

const root = resolve(import.meta.dirname, '../..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rk-cli-'));
  if (!existsSync(join(root, 'dist/lib/cli/main.js'))) {
    try {
      execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'ignore' });
    } catch {
      // tsc exits non-zero on type errors elsewhere but still emits; the check below is what matters.
    }
  }
  expect(existsSync(join(root, 'dist/lib/cli/main.js'))).toBe(true);
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function start(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; url: Promise<string>; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [join(root, 'bin/reconcilekit.js'), 'apiserver', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  const url = new Promise<string>((ok, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m?.[1]) ok(m[1]);
    });
    child.on('exit', (code) => {
      fail(new Error(`exited ${String(code)} before listening: ${out}`));
    });
  });
  url.catch(() => undefined); // awaited by the tests that expect it; a failed start shows up there
  const exit = new Promise<number | null>((ok) =>
    child.on('exit', (code) => {
      ok(code);
    }),
  );
  return { child, url, exit };
}

async function waitForFile(path: string): Promise<void> {
  for (let i = 0; i < 200 && !existsSync(path); i++) await new Promise((r) => setTimeout(r, 25));
  expect(existsSync(path)).toBe(true);
}

describe('reconcilekit apiserver', () => {
  it('prints its URL, serves kubectl through the written kubeconfig, and exits 0 on SIGTERM', async () => {
    const kubeconfigPath = join(dir, 'kubeconfig');
    const server = start(['--port', '0', '--kubeconfig', kubeconfigPath]);
    try {
      const url = await server.url;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(readFileSync(kubeconfigPath, 'utf8')).toContain(url);
      const target = { kubeconfigPath, kubeconfig: '', url, dir, close: () => Promise.resolve() };
      const created = await kubectl(target, ['create', 'configmap', 'from-cli', '--from-literal=a=b']);
      expect(created.stderr).toBe('');
      const got = await kubectl(target, ['get', 'configmap', 'from-cli', '-o', 'jsonpath={.data.a}']);
      expect(got.stdout).toBe('b');
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exit).toBe(0);
  });

  it('--tls serves HTTPS that kubectl trusts through the CA data of the written kubeconfig', async () => {
    const kubeconfigPath = join(dir, 'kubeconfig-tls');
    const server = start(['--port', '0', '--tls', '--client-certificates', '--kubeconfig', kubeconfigPath]);
    try {
      const url = await server.url;
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const written = readFileSync(kubeconfigPath, 'utf8');
      expect(written).toContain('certificate-authority-data:');
      expect(written).toContain('client-certificate-data:');
      expect(written).not.toContain('insecure-skip-tls-verify');
      const target = { kubeconfigPath, kubeconfig: '', url, dir, close: () => Promise.resolve() };
      const created = await kubectl(target, ['create', 'configmap', 'over-tls', '--from-literal=a=b']);
      expect(created.stderr).toBe('');
      // Trusting the CA but without the client certificate: 401.
      const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(written)?.[1] ?? '', 'base64');
      const status = await new Promise<number | undefined>((ok, fail) => {
        https
          .get(`${url}/api/v1/namespaces`, { ca }, (res) => {
            res.resume();
            ok(res.statusCode);
          })
          .on('error', fail);
      });
      expect(status).toBe(401);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exit).toBe(0);
  });

  it('keeps state across restarts with --data', async () => {
    const data = join(dir, 'state.json');
    const first = start(['--port', '0', '--data', data]);
    const url1 = await first.url;
    const res = await fetch(`${url1}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'persisted' }, data: { k: 'v' } }),
    });
    expect(res.status).toBe(201);
    first.child.kill('SIGINT');
    expect(await first.exit).toBe(0);
    const second = start(['--port', '0', '--data', data]);
    try {
      const url2 = await second.url;
      const got = await fetch(`${url2}/api/v1/namespaces/default/configmaps/persisted`);
      expect(((await got.json()) as { data: unknown }).data).toEqual({ k: 'v' });
    } finally {
      second.child.kill('SIGTERM');
    }
    expect(await second.exit).toBe(0);
  });

  it('exits 1 with a message when it cannot start (port in use)', async () => {
    const first = start(['--port', '0']);
    const port = new URL(await first.url).port;
    const second = start(['--port', port]);
    let err = '';
    second.child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    expect(await second.exit).toBe(1);
    expect(err).toContain('cannot start');
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
  });

  it('refuses a non-loopback --host without authentication unless --insecure, and then warns', async () => {
    expect(() => parseApiServerArgs(['--host', '0.0.0.0'], {})).toThrow(/not loopback.*--insecure/);
    expect(parseApiServerArgs(['--host', '0.0.0.0', '--insecure'], {}).options.insecure).toBe(true);
    expect(parseApiServerArgs(['--host', '0.0.0.0', '--client-certificates'], {}).options.host).toBe(
      '0.0.0.0',
    );
    expect(parseApiServerArgs(['--host', '::1'], {}).options.insecure).toBeUndefined();
    const refused = start(['--port', '0', '--host', '0.0.0.0']);
    let err = '';
    refused.child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    expect(await refused.exit).toBe(2);
    expect(err).toContain('is not loopback and no authentication is set');
  });

  it('exits 2 when RECONCILEKIT_APISERVER_TOKEN is set but empty', async () => {
    const empty = start(['--port', '0'], { RECONCILEKIT_APISERVER_TOKEN: '' });
    let err = '';
    empty.child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    expect(await empty.exit).toBe(2);
    expect(err).toContain('RECONCILEKIT_APISERVER_TOKEN is set but empty');
  });

  it('rejects unknown flags with usage and exit code 2', async () => {
    const bad = start(['--bogus', '1']);
    expect(await bad.exit).toBe(2);
    expect(() => parseApiServerArgs(['--port', 'x'])).toThrow(/--port/);
    expect(parseApiServerArgs(['--host=0.0.0.0', '--token', 't']).options).toMatchObject({
      host: '0.0.0.0',
      token: 't',
      port: 6443,
    });
    expect(parseApiServerArgs(['--tls']).options.tls).toEqual({});
    expect(parseApiServerArgs(['--token', 't']).options.tls).toEqual({});
    expect(parseApiServerArgs(['--client-certificates']).options.tls).toEqual({ clientCertificates: true });
    expect(parseApiServerArgs(['--namespace-defaults', '--deployment-status']).options).toMatchObject({
      namespaceDefaults: true,
      deploymentStatus: true,
    });
  });

  it('takes the token from --token-file or the environment, so it never shows in ps', async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'from-file\n', { mode: 0o600 });
    expect(parseApiServerArgs(['--token-file', tokenFile], {}).options.token).toBe('from-file');
    expect(parseApiServerArgs([], { RECONCILEKIT_APISERVER_TOKEN: 'from-env' }).options.token).toBe(
      'from-env',
    );
    expect(() => parseApiServerArgs(['--token-file', join(dir, 'missing')], {})).toThrow(/--token-file/);
    // Fail closed: a variable set but empty is a missing token, never an open server.
    expect(() => parseApiServerArgs([], { RECONCILEKIT_APISERVER_TOKEN: '' })).toThrow(
      /RECONCILEKIT_APISERVER_TOKEN is set but empty/,
    );
    expect(() => parseApiServerArgs(['--token', ''], {})).toThrow(/--token is empty/);
    const kubeconfigPath = join(dir, 'token-kubeconfig');
    const server = start(['--port', '0', '--token-file', tokenFile, '--kubeconfig', kubeconfigPath]);
    try {
      const url = await server.url;
      // Token mode serves HTTPS: client-go sends a kubeconfig's token only over TLS.
      expect(url).toMatch(/^https:/);
      await waitForFile(kubeconfigPath);
      const target = { kubeconfigPath, dir } as Parameters<typeof kubectl>[0];
      const ok = await kubectl(target, ['get', 'namespaces', '-o', 'name']);
      expect(ok.stderr).toBe('');
      expect(ok.stdout).toContain('namespace/default');
      const whoami = await kubectl(target, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
      expect(whoami.stdout).toBe('reconcilekit-admin');
      // The same kubeconfig with another token: 401, which kubectl reports as Unauthorized.
      const wrongPath = join(dir, 'wrong-token-kubeconfig');
      writeFileSync(wrongPath, readFileSync(kubeconfigPath, 'utf8').replace(/token: .*/, 'token: "wrong"'));
      const denied = await kubectl({ ...target, kubeconfigPath: wrongPath }, ['get', 'namespaces'], '');
      expect(denied.code).not.toBe(0);
      expect(denied.stderr).toContain('You must be logged in to the server (Unauthorized)');
      // And without any credential: 401, on which kubectl asks for a user name (stdin closed: EOF).
      const anonymousPath = join(dir, 'anonymous-kubeconfig');
      writeFileSync(
        anonymousPath,
        readFileSync(kubeconfigPath, 'utf8').replace(/ {2}user:\n {4}token: .*/, '  user: {}'),
      );
      const anonymous = await kubectl(
        { ...target, kubeconfigPath: anonymousPath },
        ['get', 'namespaces'],
        '',
      );
      expect(anonymous.code).not.toBe(0);
      expect(anonymous.stdout).toContain('Please enter Username');
      // What `ps` shows: the path, never the token.
      expect(readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8')).not.toContain('from-file\0');
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exit).toBe(0);
  });
});
