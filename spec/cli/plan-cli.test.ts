// `reconcilekit plan` as a user runs it: the built CLI, an entry module exporting its Framework, a kubeconfig
// file for the embedded API server (and kube-apiserver under `make test-real`: the dry-run proxy's cases);
// exit code 0 / 2 / 1 and clear messages for bad entries.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttp2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { startTestEnvironment, type TestEnvironment } from 'reconcilekit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REAL_BACKEND } from '../real/real-backend.js';

const root = resolve(import.meta.dirname, '../..');
const dir = join(root, `spec/cli/.tmp-plan-${process.pid}`);
let env: TestEnvironment;
let ns: string;

function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(root, 'bin/reconcilekit.js'), 'plan', ...args],
      (err, stdout, stderr) => {
        done({ code: err === null ? 0 : Number(err.code), stdout, stderr });
      },
    );
  });
}

/** resourceVersion of every Greeting and ConfigMap in the namespace. */
async function versions(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const ref of [
    { apiVersion: 'example.com/v1', kind: 'Greeting', plural: 'greetings' },
    { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' },
  ]) {
    for (const o of (await env.client.list({ ...ref, namespace: ns })).items) {
      out.set(`${o.kind}/${o.metadata?.name}`, o.metadata?.resourceVersion ?? '');
    }
  }
  return out;
}

function entry(file: string, text: string): string {
  const path = join(dir, file);
  writeFileSync(path, text);
  return path;
}

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  env = await startTestEnvironment({ crds: ['examples/greeting-operator/crd.yaml'] });
  ns = await env.createNamespace('plancli');
  writeFileSync(join(dir, 'kubeconfig'), env.kubeConfig.exportConfig());
  entry(
    'operator.mjs',
    `import { CRUDResource, Framework, ResourceSet } from 'reconcilekit';
import { greetingConfigMap } from '${join(root, 'dist/examples/greeting-operator/greeting-configmap.js')}';
export const framework = new Framework({
  name: 'greeting-operator',
  resource: { apiVersion: 'example.com/v1', kind: 'Greeting', plural: 'greetings' },
  resourceSets: [new ResourceSet({ resources: [new CRUDResource({ ops: greetingConfigMap })] })],
});
`,
  );
}, 60_000);

afterAll(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reconcilekit plan', () => {
  it('exits 0 with nothing to do, 2 with planned changes (table and json), and changes nothing', async () => {
    const kc = join(dir, 'kubeconfig');
    const empty = await run(join(dir, 'operator.mjs'), '--kubeconfig', kc, '-n', ns);
    expect(empty.stderr).toBe('');
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('Plan: 0 change(s) over 0 object(s)');

    await env.client.create({
      apiVersion: 'example.com/v1',
      kind: 'Greeting',
      plural: 'greetings',
      metadata: { name: 'hello', namespace: ns },
      spec: { message: 'hi' },
    } as never);
    const planned = await run(join(dir, 'operator.mjs'), '--kubeconfig', kc, '-n', ns);
    expect(planned.code).toBe(2);
    expect(planned.stdout).toMatch(new RegExp(`${ns}/hello\\s+0\\s+greeting-configmap\\s+1\\s+0\\s+0`));
    const json = await run(join(dir, 'operator.mjs'), '--kubeconfig', kc, '-n', ns, '-o', 'json');
    expect(json.code).toBe(2);
    const body = JSON.parse(json.stdout) as {
      changes: number;
      objects: { resources: { parts: { diff: unknown[] }[] }[] }[];
    };
    expect(body.changes).toBe(1);
    expect(body.objects[0]?.resources[0]?.parts[0]?.diff).toContainEqual({
      path: 'data.message',
      after: 'hi',
    });
    // -o diff: the planned ConfigMap's YAML as a unified diff; plain when stdout is no terminal, ANSI with --color.
    const diff = await run(join(dir, 'operator.mjs'), '--kubeconfig', kc, '-n', ns, '-o', 'diff');
    expect(diff.code).toBe(2);
    const lines = diff.stdout.split('\n');
    expect(lines).toContain(`# ${ns}/hello (resource set 0)`);
    expect(lines).toContain('--- /dev/null');
    expect(lines).toContain('+++ greeting-configmap (planned create)');
    expect(lines).toContain('+kind: ConfigMap');
    expect(lines).toContain('+  message: hi');
    expect(lines.find((l) => l.startsWith('@@'))).toMatch(/^@@ -0,0 \+1,\d+ @@$/);
    expect(diff.stdout).not.toContain('\u001b[');
    const colored = await run(
      join(dir, 'operator.mjs'),
      '--kubeconfig',
      kc,
      '-n',
      ns,
      '-o',
      'diff',
      '--color',
    );
    expect(colored.code).toBe(2);
    expect(colored.stdout).toContain('\u001b[32m+  message: hi\u001b[0m');
    const cms = await env.client.list({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      plural: 'configmaps',
      namespace: ns,
    });
    expect(cms.items).toHaveLength(0);
  }, 120_000);

  // Not on kube-apiserver (`make test-real` runs the proxy's cases only): nothing here depends on the backend.
  it.skipIf(REAL_BACKEND)(
    'an object whose getDesiredState throws: its error named, the others planned, exit 1, nothing applied',
    async () => {
      const kc = join(dir, 'kubeconfig');
      const entryPath = entry(
        'throws.mjs',
        `import { CRUDResource, Framework, ResourceSet } from 'reconcilekit';
import { greetingConfigMap } from '${join(root, 'dist/examples/greeting-operator/greeting-configmap.js')}';
const throwing = {
  ...greetingConfigMap,
  getDesiredState(ctx, greeting) {
    if (greeting.metadata.name === 'bad') throw new Error('spec.message of bad cannot be rendered');
    return greetingConfigMap.getDesiredState(ctx, greeting);
  },
};
export const framework = new Framework({
  name: 'greeting-operator',
  resource: { apiVersion: 'example.com/v1', kind: 'Greeting', plural: 'greetings' },
  resourceSets: [new ResourceSet({ resources: [new CRUDResource({ ops: throwing })] })],
});
`,
      );
      await env.client.create({
        apiVersion: 'example.com/v1',
        kind: 'Greeting',
        metadata: { name: 'bad', namespace: ns },
        spec: { message: 'bad' },
      } as never);
      const before = await versions();
      const result = await run(entryPath, '--kubeconfig', kc, '-n', ns);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        new RegExp(
          `${ns}/bad\\s+0\\s+error: resource "greeting-configmap" getDesiredState: spec\\.message of bad cannot be rendered`,
        ),
      );
      expect(result.stdout).toMatch(new RegExp(`${ns}/hello\\s+0\\s+greeting-configmap\\s+1\\s+0\\s+0`));
      expect(result.stdout).toContain('Plan: 1 change(s) over 2 object(s), 1 with errors.');
      expect(await versions()).toEqual(before);
    },
    60_000,
  );

  // Not on kube-apiserver (`make test-real` runs the proxy's cases only): nothing here depends on the backend.
  it.skipIf(REAL_BACKEND)(
    'an entry that starts its operator on import: nothing started, one message, exit 1, nothing applied',
    async () => {
      const kc = join(dir, 'kubeconfig');
      const framework = `import { CRUDResource, Framework, ResourceSet, runUntilSignal, silentLogger } from 'reconcilekit';
import { greetingConfigMap } from '${join(root, 'dist/examples/greeting-operator/greeting-configmap.js')}';
const framework = new Framework({
  name: 'greeting-operator',
  resource: { apiVersion: 'example.com/v1', kind: 'Greeting', plural: 'greetings' },
  resourceSets: [new ResourceSet({ resources: [new CRUDResource({ ops: greetingConfigMap })] })],
  logger: silentLogger(),
});
`;
      const before = await versions();
      // getting-started's main.ts: no export, runUntilSignal at top level (it waited for a signal forever).
      const main = await run(
        entry('main.mjs', `${framework}await runUntilSignal(framework);\n`),
        '--kubeconfig',
        kc,
        '-n',
        ns,
      );
      // Exported, and started whenever imported.
      const exported = await run(
        entry('starts.mjs', `${framework}export { framework };\nawait framework.start();\n`),
        '--kubeconfig',
        kc,
        '-n',
        ns,
      );
      // A start() nobody awaits, inside an Operator.
      const floating = await run(
        entry(
          'floating.mjs',
          `${framework}import { Operator } from 'reconcilekit';\nconst operator = new Operator({ logger: silentLogger() });\noperator.addController(framework);\nvoid operator.start();\n`,
        ),
        '--kubeconfig',
        kc,
        '-n',
        ns,
      );
      for (const [result, called] of [
        [main, 'runUntilSignal()'],
        [exported, 'framework "greeting-operator".start()'],
        [floating, 'Operator.start()'],
      ] as const) {
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        // One line: no stack trace, no log of refused writes.
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toContain(`starts its operator when imported (it called ${called})`);
        expect(result.stderr).toMatch(/start it only when the module is the main module/);
      }
      expect(await versions()).toEqual(before);
    },
    60_000,
  );

  it('refuses a write an entry makes on import outside the plan, says so, exit 1', async () => {
    const kc = join(dir, 'kubeconfig');
    const writes = entry(
      'writes.mjs',
      `import { ObjectClient, loadKubeConfig } from 'reconcilekit';
export { framework } from './operator.mjs';
const client = new ObjectClient({ kubeConfig: loadKubeConfig() });
await client
  .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'on-import', namespace: process.env.NS } })
  .catch(() => undefined);
client.close();
`,
    );
    const before = await versions();
    const result = await new Promise<{ code: number; stderr: string }>((done) => {
      execFile(
        process.execPath,
        [join(root, 'bin/reconcilekit.js'), 'plan', writes, '--kubeconfig', kc, '-n', ns],
        { env: { ...process.env, NS: ns } },
        (err, _stdout, stderr) => {
          done({ code: err === null ? 0 : Number(err.code), stderr });
        },
      );
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/refused 1 write\(s\) made outside the plan, e\.g\. POST https?:\/\//);
    expect(result.stderr).toMatch(/start it only when it is the main module/i);
    expect(await versions()).toEqual(before);
  }, 60_000);

  it("writes that bypass the plan's client (new ClientRequest, a method changed before end(), a raw socket, a child process, a worker) are refused by the dry-run proxy: exit 1 naming each object, nothing written", async () => {
    const kc = join(dir, 'kubeconfig');
    const clientNode = import.meta.resolve('@kubernetes/client-node');
    const entryPath = entry(
      'bypasses.mjs',
      `import http from 'node:http';
import net from 'node:net';
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { CRUDResource, Framework, ResourceSet } from 'reconcilekit';
import { KubeConfig } from '@kubernetes/client-node';
import { greetingConfigMap } from '${join(root, 'dist/examples/greeting-operator/greeting-configmap.js')}';

// Whatever KUBECONFIG names, as any code that talks to the cluster would find it.
const kc = new KubeConfig();
kc.loadFromDefault();
const server = new URL(kc.getCurrentCluster().server);
const token = kc.getCurrentUser()?.token;
const auth = token ? { authorization: 'Bearer ' + token } : {};
const path = '/api/v1/namespaces/${ns}/configmaps';
const cm = (name) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: '${ns}' } });
const headers = (body) => ({ ...auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
const settled = (req) => new Promise((r) => { req.on('response', (res) => { res.resume(); res.on('end', r); }); req.on('error', r); });

{ // the ClientRequest constructor, not http.request
  const body = cm('bypass-clientrequest');
  const req = new http.ClientRequest({ host: server.hostname, port: server.port, path, method: 'POST', headers: headers(body) });
  const done = settled(req);
  req.end(body);
  await done;
}
{ // a GET whose method is changed before end()
  const body = cm('bypass-method');
  const req = http.request({ host: server.hostname, port: server.port, path, method: 'GET', headers: headers(body) });
  req.method = 'POST';
  const done = settled(req);
  req.end(body);
  await done;
}
await new Promise((resolve) => { // a raw socket
  const body = cm('bypass-socket');
  const socket = net.connect(Number(server.port), server.hostname, () => {
    const lines = ['POST ' + path + ' HTTP/1.1', 'host: ' + server.host, 'content-type: application/json',
      'content-length: ' + Buffer.byteLength(body), 'connection: close', ...(token ? ['authorization: Bearer ' + token] : [])];
    socket.end(lines.join('\\r\\n') + '\\r\\n\\r\\n' + body);
  });
  socket.on('data', () => undefined);
  socket.on('close', resolve);
  socket.on('error', resolve);
});
const viaFetch = (name) => \`
  const { KubeConfig } = await import(\${JSON.stringify(${JSON.stringify(clientNode)})});
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const token = kc.getCurrentUser()?.token;
  await fetch(kc.getCurrentCluster().server + \${JSON.stringify(path)}, { method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: 'Bearer ' + token } : {}) },
    body: \${JSON.stringify(cm(name))} }).catch(() => undefined);\`;
// a child process (inherits this process's environment)
spawnSync(process.execPath, ['--input-type=module', '-e', viaFetch('bypass-child')], { stdio: 'ignore' });
// a worker thread
await new Promise((resolve) => {
  const w = new Worker('(async () => {' + viaFetch('bypass-worker').replace(/^\\s*const \\{ KubeConfig \\} = await import/m, 'const { KubeConfig } = await import') + '})()', { eval: true });
  w.on('exit', resolve);
  w.on('error', resolve);
});

export const framework = new Framework({
  name: 'greeting-operator',
  resource: { apiVersion: 'example.com/v1', kind: 'Greeting', plural: 'greetings' },
  resourceSets: [new ResourceSet({ resources: [new CRUDResource({ ops: greetingConfigMap })] })],
});
`,
    );
    const before = await versions();
    const result = await run(entryPath, '--kubeconfig', kc, '-n', ns);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain('the dry-run proxy refused 5 request(s) that bypassed the plan');
    for (const name of [
      'bypass-clientrequest',
      'bypass-method',
      'bypass-socket',
      'bypass-child',
      'bypass-worker',
    ]) {
      expect(result.stderr).toContain(`POST configmaps ${ns}/${name}: a write without dryRun=All`);
      await expect(
        env.client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name }),
      ).rejects.toThrow();
    }
    expect(await versions()).toEqual(before);
  }, 60_000);

  it('requests to another host (http2, a GET, fetch, a raw socket; in a pass or on import) are refused before a connection opens: exit 1 naming each object, 0 requests arrive', async () => {
    const kc = join(dir, 'kubeconfig');
    const hostsNs = await env.createNamespace('plancli-hosts');
    // The other host: a plain HTTP/1.1 server and an h2c server, each counting the connections it accepts.
    let connections = 0;
    const side = createServer((_req, res) => res.end('side effect done'));
    const sideH2 = createHttp2Server((_req, res) => res.end('side effect done'));
    side.on('connection', () => connections++);
    sideH2.on('connection', () => connections++);
    await new Promise<void>((r) => side.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => sideH2.listen(0, '127.0.0.1', r));
    const port = (side.address() as AddressInfo).port;
    const h2Port = (sideH2.address() as AddressInfo).port;
    try {
      const entryPath = entry(
        'other-hosts.mjs',
        `import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { CRUDResource, Framework, ResourceSet } from 'reconcilekit';
import { greetingConfigMap } from '${join(root, 'dist/examples/greeting-operator/greeting-configmap.js')}';
const target = 'http://127.0.0.1:${port}/side-effect';
const bounded = (p) => Promise.race([p, new Promise((r) => setTimeout(r, 5000))]);
const reach = {
  'side-h2': () => new Promise((r) => {
    const session = http2.connect('http://127.0.0.1:${h2Port}');
    session.on('error', r);
    const req = session.request({ ':method': 'GET', ':path': '/side-effect' });
    req.on('error', r);
    req.on('response', () => { session.close(); r(); });
    req.end();
  }),
  'side-get': () => new Promise((r) => {
    try { http.get(target, (res) => { res.resume(); res.on('end', r); }).on('error', r); } catch { r(); }
  }),
  'side-fetch': () => fetch(target).then((res) => res.text()).catch(() => undefined),
  'side-socket': () => new Promise((r) => {
    const socket = net.connect(${port}, '127.0.0.1', () => socket.end('GET /side-effect HTTP/1.1\\r\\nhost: x\\r\\nconnection: close\\r\\n\\r\\n'));
    socket.on('error', r);
    socket.on('close', r);
  }),
};
// On import, outside any object's pass.
await bounded(fetch(target + '?on-import').catch(() => undefined));
const ops = {
  ...greetingConfigMap,
  async getDesiredState(ctx, greeting) {
    await bounded(reach[greeting.metadata.name]?.() ?? Promise.resolve());
    return greetingConfigMap.getDesiredState(ctx, greeting);
  },
};
export const framework = new Framework({
  name: 'greeting-operator',
  resource: { apiVersion: 'example.com/v1', kind: 'Greeting', plural: 'greetings' },
  resourceSets: [new ResourceSet({ resources: [new CRUDResource({ ops })] })],
});
`,
      );
      const names = ['side-h2', 'side-get', 'side-fetch', 'side-socket'];
      for (const name of names) {
        await env.client.create({
          apiVersion: 'example.com/v1',
          kind: 'Greeting',
          metadata: { name, namespace: hostsNs },
          spec: { message: name },
        } as never);
      }
      const result = await run(entryPath, '--kubeconfig', kc, '-n', hostsNs);
      expect(result.code, result.stderr).toBe(1);
      const refused = {
        'side-h2': `CONNECT 127\\.0\\.0\\.1:${h2Port}`,
        // http.get calls node:http's own request binding, not the guarded property: the socket is refused.
        'side-get': `CONNECT 127\\.0\\.0\\.1:${port}`,
        'side-fetch': `GET http://127\\.0\\.0\\.1:${port}/side-effect`,
        'side-socket': `CONNECT 127\\.0\\.0\\.1:${port}`,
      };
      for (const name of names) {
        expect(result.stdout).toMatch(
          new RegExp(
            `${hostsNs}/${name}\\s+0\\s+${refused[name as keyof typeof refused]} \\(another host than the API server\\).*not plannable: a step reached for another host than the API server`,
          ),
        );
      }
      expect(result.stderr).toMatch(
        new RegExp(
          `refused 1 request\\(s\\) made outside the plan's objects, e\\.g\\. GET http://127\\.0\\.0\\.1:${port}/side-effect`,
        ),
      );
      expect(connections).toBe(0);
      const cms = await env.client.list({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        plural: 'configmaps',
        namespace: hostsNs,
      });
      expect(cms.items).toHaveLength(0);
    } finally {
      side.close();
      sideH2.close();
    }
  }, 60_000);

  // Not on kube-apiserver (`make test-real` runs the proxy's cases only): nothing here depends on the backend.
  it.skipIf(REAL_BACKEND)(
    'says what is wrong with a missing entry, one without a Framework, one with a syntax error; exit 1',
    async () => {
      const missing = await run(join(dir, 'nope.mjs'));
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/nope\.mjs does not exist/);
      const none = await run(entry('none.mjs', 'export const x = 1;\n'));
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(/exports no Operator, Framework or Controller: add `export const operator/);
      const broken = await run(entry('broken.mjs', 'export const = ;\n'));
      expect(broken.code).toBe(1);
      expect(broken.stderr).toMatch(/loading .*broken\.mjs failed/);
      const wrongDefault = await run(
        entry('wrong-default.mjs', 'export default { start() {}, stop() {} };\n'),
      );
      expect(wrongDefault.code).toBe(1);
      expect(wrongDefault.stderr).toMatch(/exports no Operator, Framework or Controller/);
      const throwsOnImport = await run(entry('throws-on-import.mjs', "throw new Error('no config');\n"));
      expect(throwsOnImport.code).toBe(1);
      expect(throwsOnImport.stderr).toMatch(/loading .*throws-on-import\.mjs failed: no config/);
      const badOutput = await run(join(dir, 'operator.mjs'), '-o', 'yaml');
      expect(badOutput.code).toBe(1);
      expect(badOutput.stderr).toMatch(/-o must be table, json or diff/);
    },
    60_000,
  );
});
