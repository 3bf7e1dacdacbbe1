// `reconcilekit run-spec` as a user runs it: the YAML example of examples/declarative-operator on the
// embedded server, driven through the written kubeconfig with client and kubectl; bad files and a bad
// controller; a graceful exit on SIGTERM. Needs the build (`make test` builds first).
import { statSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { isNotFound } from '../../lib/kube/api-error.js';
import { applyManifests, readManifests, waitFor } from '../../lib/testing/index.js';
import { kubectl } from '../apiserver/support/target.js';

const root = resolve(import.meta.dirname, '../..');
const example = join(root, 'examples/declarative-operator');
let dir: string;

beforeAll(() => {
  expect(existsSync(join(root, 'dist/lib/cli/main.js')), 'build first: npx tsc -p tsconfig.build.json').toBe(
    true,
  );
  dir = mkdtempSync(join(tmpdir(), 'rk-run-spec-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

function runSpec(args: string[], cwd = dir): Run {
  const env = { ...process.env };
  delete env.KUBECONFIG;
  const child = spawn(process.execPath, [join(root, 'bin/reconcilekit.js'), 'run-spec', ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const collect = (d: Buffer): void => {
    out += d.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exit = new Promise<number | null>((ok) => {
    child.on('exit', (code) => {
      ok(code);
    });
  });
  return { child, output: () => out, exit };
}

/** The status of a GET without credentials (the server's CA is not checked: only the answer matters). */
function anonymousStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    httpsGet(url, { rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
}

async function viewClient(cwd: string, run: Run): Promise<{ client: ObjectClient; kubeconfig: string }> {
  await waitFor(() => /view server on \S+/.test(run.output()), {
    timeoutMs: 20_000,
    description: 'the view server line',
  });
  const kubeconfig = join(cwd, '.reconcilekit/views.kubeconfig');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig);
  return { client: new ObjectClient({ kubeConfig }), kubeconfig };
}

const rendered = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'shop-rendered' };

describe('reconcilekit run-spec', () => {
  it('runs the YAML example: a 3-source join into a view, rendered into a ConfigMap that follows changes and deletion; exits 0 on SIGTERM', async () => {
    const run = runSpec([join(example, 'app-config.yaml'), '--embedded']);
    const { client, kubeconfig } = await viewClient(dir, run);
    try {
      await waitFor(() => run.output().includes('app-config/render Ready=True'), {
        timeoutMs: 20_000,
        description: 'both controllers ready',
      });
      await applyManifests(client, await readManifests(join(example, 'objects.yaml')));
      const cm = await waitFor(() => client.get<V1ConfigMap>(rendered), { timeoutMs: 15_000 });
      expect(cm.data).toEqual({
        message: 'Welcome to the shop (runs as shop, token of 12 characters)',
      });
      expect(cm.metadata?.labels).toMatchObject({ 'app.example.com/rendered-from': 'shop' });

      // The view is a real object of the view server: kubectl reads it.
      const target = { kubeconfigPath: kubeconfig, kubeconfig: '', url: '', dir, close: async () => {} };
      const got = await kubectl(target, [
        'get',
        'appconfigs.app-config.view.reconcilekit.io',
        '-n',
        'default',
        '-o',
        'jsonpath={.items[*].spec.serviceAccount}',
      ]);
      expect(got.stderr).toBe('');
      expect(got.stdout).toBe('shop');

      // Only holders of the kubeconfig (0600, with the server's token) get in: anyone else gets 401.
      expect(statSync(kubeconfig).mode & 0o777).toBe(0o600);
      const server = /view server on (\S+)/.exec(run.output())?.[1] ?? '';
      expect(server).toMatch(/^https:/);
      expect(await anonymousStatus(`${server}/api/v1/secrets`)).toBe(401);

      await client.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'shop' },
        { data: { greeting: 'Hello again' } },
        'merge',
      );
      await waitFor(
        async () => (await client.get<V1ConfigMap>(rendered)).data?.message?.startsWith('Hello again'),
        { timeoutMs: 15_000, description: 'the rendered message to follow the ConfigMap' },
      );

      // Without its Secret the app's join is empty: the view goes, and the Updater deletes its ConfigMap.
      await client.delete({ apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: 'shop' });
      await waitFor(
        () =>
          client.get(rendered).then(
            () => false,
            (e: unknown) => isNotFound(e),
          ),
        { timeoutMs: 15_000, description: 'the rendered ConfigMap to be deleted' },
      );
    } finally {
      client.close();
      run.child.kill('SIGTERM');
    }
    expect(await run.exit).toBe(0);
    expect(run.output()).toContain('stopping');
  }, 90_000);

  it('keeps the good controller running when another is bad, and says where the bad one is wrong; exits 0 on SIGINT', async () => {
    const cwd = mkdtempSync(join(dir, 'bad-'));
    const file = join(cwd, 'mixed.yaml');
    writeFileSync(
      file,
      [
        'controllers:',
        '  - name: good',
        '    sources: [{ apiGroup: "", kind: ConfigMap }]',
        '    pipeline: [{ "@project": { metadata: { name: "$.metadata.name", namespace: "$.metadata.namespace" } } }]',
        '    target: { kind: Copy }',
        '  - name: bad',
        '    sources: [{ apiGroup: "", kind: ConfigMap }]',
        '    pipeline: [{ "@project": { "@nosuchop": 1 } }]',
        '    target: { kind: Broken }',
        '',
      ].join('\n'),
    );
    const run = runSpec([file, '--embedded'], cwd);
    try {
      await waitFor(() => /mixed\/good Ready=True/.test(run.output()), { timeoutMs: 20_000 });
      await waitFor(() => /mixed\/bad Ready=False .*controllers\[1\]\.pipeline/.test(run.output()), {
        timeoutMs: 20_000,
        description: "the bad controller's located error",
      });
      expect(run.output()).toContain('@nosuchop');
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exit).toBe(0);
    expect(run.output()).toMatch(/stopping\n/);
  }, 60_000);

  it('refuses bad input with a clear message and a non-zero exit: missing file, broken YAML, no file, unknown flag', async () => {
    const missing = runSpec(['nope.yaml']);
    expect(await missing.exit).toBe(2);
    expect(missing.output()).toContain('nope.yaml does not exist');

    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'controllers:\n  - name: x\n    sources: [\n');
    const syntax = runSpec([broken, '--embedded']);
    expect(await syntax.exit).toBe(1);
    expect(syntax.output()).toMatch(/broken\.yaml.*not valid YAML.*line \d+/);

    const none = runSpec([]);
    expect(await none.exit).toBe(2);
    expect(none.output()).toContain('which operator spec?');

    const flag = runSpec([broken, '--watch']);
    expect(await flag.exit).toBe(2);
    expect(flag.output()).toContain('unknown flag "--watch"');
  }, 60_000);
});
