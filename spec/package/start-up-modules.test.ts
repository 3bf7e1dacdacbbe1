// A Framework started from KUBECONFIG (the README's operator) reaches its first reconcile without loading
// @kubernetes/client-node: reconcilekit reads the kubeconfig itself; so does a DeclarativeOperator (docs/
// declarative.md's example), for the cluster and for its embedded view server. A child process runs the
// built package (dist, as a user imports it) and records every module it resolves.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../../lib/apiserver/index.js';

const CHILD = `
import { registerHooks } from 'node:module';
const resolved = [];
registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); resolved.push(r.url); return r; } });
const { CRUDResource, Framework, ResourceSet, clientKey } = await import(process.env.RK_ENTRY);
let seen;
const first = new Promise((resolve) => { seen = resolve; });
const ops = {
  name: 'probe',
  async getCurrentState(ctx, cm) {
    const again = await ctx.get(clientKey).get({ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps',
      namespace: cm.metadata.namespace, name: cm.metadata.name });
    seen(again.metadata.name);
    return undefined;
  },
  getDesiredState: () => undefined,
  newUpdatePatch: () => undefined,
  newDeletePatch: () => undefined,
  applyCreateChange: () => undefined,
  applyUpdateChange: () => undefined,
  applyDeleteChange: () => undefined,
};
const framework = new Framework({
  name: 'probe',
  resource: { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace: 'default' },
  resourceSets: [new ResourceSet({ resources: [new CRUDResource({ ops })] })],
  finalizer: false,
});
await framework.start();
const name = await first;
const count = (part) => resolved.filter((u) => u.includes(part)).length;
const atFirst = {
  otel: count('@opentelemetry/api'),
  defaultMetrics: count('prom-client/lib/defaultMetrics'),
  undici: process.moduleLoadList.some((m) => m.includes('deps/undici')),
  cjsLexer: process.moduleLoadList.some((m) => m.includes('cjs-module-lexer')),
};
const scraped = await framework.metrics.metrics();
const afterScrape = { otel: count('@opentelemetry/api') > 0, cpu: /^process_cpu_seconds_total \\d/m.test(scraped) };
await framework.stop();
const clientNode = count('@kubernetes/client-node');
process.stdout.write('\\nRESULT ' + JSON.stringify({ name, clientNode, atFirst, afterScrape }) + '\\n');
process.exit(0);
`;

// docs/declarative.md's "Run one from TypeScript": ConfigMaps of default projected into views; the child
// waits for the view of the ConfigMap the test created, read from the view server with its token (a view's
// plural is its kind lowercased plus "s", as dcontroller names it).
const DECLARATIVE_CHILD = `
import { registerHooks } from 'node:module';
const resolved = [];
registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); resolved.push(r.url); return r; } });
const { DeclarativeOperator } = await import(process.env.RK_ENTRY);
const operator = new DeclarativeOperator('summaries', {
  controllers: [{
    name: 'copy',
    sources: [{ apiGroup: '', kind: 'ConfigMap', namespace: 'default' }],
    pipeline: [{ '@project': {
      metadata: { name: '$.metadata.name', namespace: '$.metadata.namespace' },
      spec: { keys: { '@len': '$.data' } },
    } }],
    target: { kind: 'ConfigMapSummary' },
  }],
});
await operator.start();
const server = operator.viewServer;
const token = /token: *"?([^"\\s]+)/.exec(server.kubeconfig)[1];
const url = server.url + '/apis/' + operator.viewGroup + '/v1alpha1/namespaces/default/configmapsummarys/first';
let view;
for (const deadline = Date.now() + 30_000; view === undefined && Date.now() < deadline;) {
  const res = await fetch(url, { headers: { authorization: 'Bearer ' + token } });
  if (res.ok) view = await res.json();
  else await new Promise((r) => setTimeout(r, 50));
}
await operator.stop();
const clientNode = resolved.filter((u) => u.includes('@kubernetes/client-node')).length;
process.stdout.write('\\nRESULT ' + JSON.stringify({ view: view?.spec, clientNode }) + '\\n');
process.exit(0);
`;

let server: ApiServer;
let dir: string;

beforeAll(async () => {
  server = await startApiServer();
  dir = mkdtempSync(join(tmpdir(), 'rk-start-up-'));
  writeFileSync(join(dir, 'kubeconfig'), server.kubeconfig);
  writeFileSync(join(dir, 'child.mjs'), CHILD);
  writeFileSync(join(dir, 'declarative-child.mjs'), DECLARATIVE_CHILD);
  const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'first' },
      data: { a: '1' },
    }),
  });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('start-up', () => {
  it('a Framework on KUBECONFIG reconciles through its client without loading @kubernetes/client-node, the process metrics, undici or the CommonJS scanner', async () => {
    const out = await runChild('child.mjs');
    const result = out.split('\n').find((l) => l.startsWith('RESULT ')) ?? 'RESULT null';
    // Neither client-node nor prom-client's process metrics (with OpenTelemetry) are loaded by the first
    // reconcile; the first read of the registry makes the process metrics. Nor is Node's bundled undici
    // (fetch, WebSocket): an ES import of node:http would load it, reading the module's lazy getters. Nor is
    // Node's CommonJS export scanner (~8 MiB of RSS), which an ES import of a CommonJS package starts.
    expect(JSON.parse(result.slice(7))).toEqual({
      name: 'first',
      clientNode: 0,
      atFirst: { otel: 0, defaultMetrics: 0, undici: false, cjsLexer: false },
      afterScrape: { otel: true, cpu: true },
    });
  });

  it('a DeclarativeOperator on KUBECONFIG projects its view without loading @kubernetes/client-node', async () => {
    const out = await runChild('declarative-child.mjs');
    const result = out.split('\n').find((l) => l.startsWith('RESULT ')) ?? 'RESULT null';
    expect(JSON.parse(result.slice(7))).toEqual({ view: { keys: 1 }, clientNode: 0 });
  });
});

function runChild(file: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [join(dir, file)],
      {
        cwd: process.cwd(),
        env: {
          ...process.env,
          KUBECONFIG: join(dir, 'kubeconfig'),
          RK_ENTRY: pathToFileURL(join(process.cwd(), 'dist/lib/index.js')).href,
        },
        timeout: 60_000,
      },
      (err, stdout, stderr) => {
        if (err === null) resolve(stdout);
        else reject(new Error(`${err.message}\n${stderr}`));
      },
    );
  });
}
