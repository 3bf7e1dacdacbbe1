// A Framework started from KUBECONFIG (the README's operator) reaches its first reconcile without loading
// @kubernetes/client-node: reconcilekit reads the kubeconfig itself. A child process runs the built package
// (dist, as a user imports it) and records every module it resolves.
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
};
const scraped = await framework.metrics.metrics();
const afterScrape = { otel: count('@opentelemetry/api') > 0, cpu: /^process_cpu_seconds_total \\d/m.test(scraped) };
await framework.stop();
const clientNode = count('@kubernetes/client-node');
process.stdout.write('\\nRESULT ' + JSON.stringify({ name, clientNode, atFirst, afterScrape }) + '\\n');
process.exit(0);
`;

let server: ApiServer;
let dir: string;

beforeAll(async () => {
  server = await startApiServer();
  dir = mkdtempSync(join(tmpdir(), 'rk-start-up-'));
  writeFileSync(join(dir, 'kubeconfig'), server.kubeconfig);
  writeFileSync(join(dir, 'child.mjs'), CHILD);
  const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'first' } }),
  });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('start-up', () => {
  it('a Framework on KUBECONFIG reconciles through its client without loading @kubernetes/client-node, the process metrics or undici', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [join(dir, 'child.mjs')],
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
    const result = out.split('\n').find((l) => l.startsWith('RESULT ')) ?? 'RESULT null';
    // Neither client-node nor prom-client's process metrics (with OpenTelemetry) are loaded by the first
    // reconcile; the first read of the registry makes the process metrics. Nor is Node's bundled undici
    // (fetch, WebSocket): an ES import of node:http would load it, reading the module's lazy getters.
    expect(JSON.parse(result.slice(7))).toEqual({
      name: 'first',
      clientNode: 0,
      atFirst: { otel: 0, defaultMetrics: 0, undici: false },
      afterScrape: { otel: true, cpu: true },
    });
  });
});
