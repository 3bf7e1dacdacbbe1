// The package as a newcomer gets it: `npm pack` of the build, installed into a fresh ESM project outside
// the repository. Every entry point imports from ESM and CommonJS, a `.ts` consumer type-checks with
// `nodenext` and `bundler` resolution, and `npx reconcilekit --help` runs.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerProject, packedTarball, ROOT, typeCheck } from './support/packed.js';

const run = promisify(execFile);
// Every entry of package.json `exports` (a spec below checks the two lists agree), with names it must export.
const SAMPLE_EXPORTS = {
  reconcilekit: ['Framework', 'CRUDResource', 'runUntilSignal', 'createOrUpdate', 'Controller', 'plan'],
  'reconcilekit/crud': ['Framework', 'CRUDResource', 'Patch', 'ResourceSet', 'ResourceRouter'],
  'reconcilekit/controller': ['Controller', 'ReconcileError', 'ReconcileAction'],
  'reconcilekit/informer-controller': ['InformerController', 'SimpleReconciler', 'OpinionatedReconciler'],
  'reconcilekit/phases': ['StdK8sReconciler', 'StdReconciler', 'PhaseError'],
  'reconcilekit/bound': ['bindObject', 'BoundObject'],
  'reconcilekit/declarative': ['DeclarativeOperator', 'OperatorGroup', 'parseOperatorSpec'],
  'reconcilekit/operator': ['Operator'],
  'reconcilekit/plan': ['plan', 'renderDiff', 'NotPlannableError'],
  'reconcilekit/status': ['setCondition', 'StatusWriter', 'setControllerReference'],
  'reconcilekit/kinds': ['defineKind'],
  'reconcilekit/sharding': ['HashRing', 'ringHash', 'Sharder', 'ShardMember'],
  'reconcilekit/engine': ['ControllerCore', 'resolveCoreConfig', 'informerKey', 'TerminalError'],
  'reconcilekit/webhooks': ['WebhookServer', 'defaulter', 'validator', 'converter'],
  'reconcilekit/apiserver': ['startApiServer', 'StatusError'],
  'reconcilekit/testing': ['startTestEnvironment', 'waitFor'],
} as const;
const ENTRY_POINTS = Object.keys(SAMPLE_EXPORTS) as (keyof typeof SAMPLE_EXPORTS)[];

let tarball: string;
let consumer: string;
let scratch = '';

beforeAll(async () => {
  tarball = await packedTarball();
  consumer = await consumerProject();
  scratch = join(consumer, `pack-${String(process.pid)}`);
  mkdirSync(scratch, { recursive: true });
}, 240_000);

afterAll(() => {
  if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
});

describe('npm pack', { timeout: 60_000 }, () => {
  it('declares exactly the entries this spec imports', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const declared = Object.keys(pkg.exports)
      .filter((k) => k !== './package.json')
      .map((k) => (k === '.' ? 'reconcilekit' : `reconcilekit/${k.slice(2)}`));
    expect(declared.sort()).toEqual([...ENTRY_POINTS].sort());
  });

  it('builds on prepack from a clean dist/lib, without source maps', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts.prepack).toMatch(
      /npm run clean && tsc -p tsconfig\.build\.json --sourceMap false && node scripts\/bundle-dist\.mjs$/,
    );
    expect(pkg.files).toContain('!dist/lib/**/*.map');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0/);
  });

  it('ships the build, the CLI, LICENSE and README — and no maps, tests or sources', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean);
    for (const f of [
      'package/LICENSE',
      'package/README.md',
      'package/package.json',
      'package/bin/reconcilekit.js',
      'package/dist/lib/index.js',
      'package/dist/lib/index.d.ts',
      ...ENTRY_POINTS.filter((e) => e !== 'reconcilekit').map(
        (e) => `package/dist/lib/${e.slice('reconcilekit/'.length)}/index.d.ts`,
      ),
      'package/dist/lib/cli/main.js',
    ]) {
      expect(files).toContain(f);
    }
    // Bundled per entry: an entry's file, the CLI's, a worker's, and chunks shared between them — not one
    // file per module (tsc's ~400), which Node's loader pays for one by one.
    const scripts = files.filter((f) => f.endsWith('.js') && f.startsWith('package/dist/'));
    expect(scripts.length).toBeLessThanOrEqual(ENTRY_POINTS.length + 40);
    expect(files).not.toContain('package/dist/lib/crud/framework.js');
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => /\.test\.|\/spec\/|\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
  });
});

describe('installed into a fresh project', { timeout: 120_000 }, () => {
  it('imports every entry point from ESM', async () => {
    const file = join(scratch, 'imports.mjs');
    writeFileSync(
      file,
      ENTRY_POINTS.map((e, i) => `import * as m${String(i)} from '${e}';`).join('\n') +
        `\nconsole.log(JSON.stringify([${ENTRY_POINTS.map((_, i) => `Object.keys(m${String(i)})`).join(',')}]));\n`,
    );
    const { stdout } = await run(process.execPath, [file], { cwd: scratch });
    const keys = JSON.parse(stdout) as string[][];
    ENTRY_POINTS.forEach((e, i) => {
      expect(keys[i]).toEqual(expect.arrayContaining([...SAMPLE_EXPORTS[e]]));
    });
  });

  it('gives one copy of each class and function to every entry that exports it (`instanceof` holds across subpaths)', async () => {
    const file = join(scratch, 'identity.mjs');
    writeFileSync(
      file,
      [
        `const root = await import('reconcilekit');`,
        // The API server imports nothing outside itself: its `ApiError` is the server's own error of that name.
        `const entries = ${JSON.stringify(ENTRY_POINTS.filter((e) => e !== 'reconcilekit' && e !== 'reconcilekit/apiserver'))};`,
        `const shared = {}, differ = [];`,
        `for (const e of entries) {`,
        `  const sub = await import(e);`,
        `  for (const [name, value] of Object.entries(sub)) {`,
        `    if (!(name in root)) continue;`,
        `    shared[e] = (shared[e] ?? 0) + 1;`,
        `    if (root[name] !== value) differ.push(e + ' ' + name);`,
        `  }`,
        `}`,
        `const { Framework } = await import('reconcilekit/crud');`,
        `const { TerminalError } = await import('reconcilekit/engine');`,
        `const checks = [new root.TerminalError('x') instanceof TerminalError, root.Framework === Framework];`,
        `console.log(JSON.stringify({ shared, differ, checks }));`,
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, [file], { cwd: scratch });
    const { shared, differ, checks } = JSON.parse(stdout) as {
      shared: Record<string, number>;
      differ: string[];
      checks: boolean[];
    };
    expect(differ).toEqual([]);
    expect(checks).toEqual([true, true]);
    // The front ends' entries overlap the root's exports (crud, controller, engine, sharding, …).
    expect(Object.keys(shared).length).toBeGreaterThanOrEqual(8);
  });

  it("loads few files on `import('reconcilekit')`, and neither the API server, CEL, client-node nor Node's undici", async () => {
    const file = join(scratch, 'start-up.mjs');
    writeFileSync(
      file,
      [
        `import { registerHooks } from 'node:module';`,
        `const urls = [];`,
        `registerHooks({ resolve(s, c, next) { const r = next(s, c); urls.push(r.url); return r; } });`,
        `await import('reconcilekit');`,
        `const own = urls.filter((u) => u.includes('/node_modules/reconcilekit/'));`,
        `const of = (part) => urls.filter((u) => u.includes(part)).length;`,
        `console.log(JSON.stringify({`,
        `  own: own.length,`,
        `  heavy: ['@kubernetes/client-node', '@marcbachmann/cel-js', 'typebox', 'node-forge', 're2js', '/yaml/', '/apiserver/'].filter((p) => of(p) > 0),`,
        `  undici: process.moduleLoadList.some((m) => m.includes('deps/undici')),`,
        `}));`,
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, [file], { cwd: scratch });
    const result = JSON.parse(stdout) as { own: number; heavy: string[]; undici: boolean };
    // The root entry and its one chunk (tsc's layout was ~230 files).
    expect(result.own).toBeLessThanOrEqual(3);
    expect(result.heavy).toEqual([]);
    expect(result.undici).toBe(false);
  });

  it('requires every entry point from CommonJS (Node ≥ 22.12 loads ESM through require)', async () => {
    const file = join(scratch, 'requires.cjs');
    writeFileSync(
      file,
      `console.log(JSON.stringify([${ENTRY_POINTS.map((e) => `typeof require('${e}').${SAMPLE_EXPORTS[e][0]}`).join(',')}]));\n`,
    );
    const { stdout } = await run(process.execPath, ['--no-warnings', file], { cwd: scratch });
    expect(JSON.parse(stdout)).toEqual(ENTRY_POINTS.map(() => 'function'));
  });

  it.each(['nodenext', 'bundler'] as const)(
    'type-checks a .ts consumer with %s resolution',
    async (resolution) => {
      const dir = join(scratch, `ts-${resolution}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: resolution === 'bundler' ? 'preserve' : 'nodenext',
            moduleResolution: resolution,
            strict: true,
            noEmit: true,
            types: ['node'],
            skipLibCheck: true, // client-node's isomorphic-ws types need @types/ws, which it does not declare,
          },
          include: ['*.ts'],
        }),
      );
      writeFileSync(
        join(dir, 'consumer.ts'),
        [
          `import { Framework, type FrameworkConfig, runUntilSignal } from 'reconcilekit';`,
          `import { startApiServer, type ApiServer } from 'reconcilekit/apiserver';`,
          `import { startTestEnvironment, type TestEnvironment } from 'reconcilekit/testing';`,
          `const config: FrameworkConfig = { name: 'x', resourceSets: [] };`,
          `export const all: [typeof Framework, typeof runUntilSignal, typeof startApiServer, typeof startTestEnvironment] =`,
          `  [Framework, runUntilSignal, startApiServer, startTestEnvironment];`,
          `export type Both = [ApiServer, TestEnvironment, typeof config];`,
          // Every subpath resolves to its declarations.
          ...ENTRY_POINTS.map((e, i) => `import { ${SAMPLE_EXPORTS[e][0]} as sub${String(i)} } from '${e}';`),
          `export const subpaths = [${ENTRY_POINTS.map((_, i) => `sub${String(i)}`).join(', ')}] as const;`,
          // A wrong call must fail, or this check proves nothing.
          `// @ts-expect-error name is a string`,
          `export const bad: FrameworkConfig = { name: 1, resourceSets: [] };`,
        ].join('\n'),
      );
      await typeCheck(consumer, dir);
    },
  );

  it("type-checks passing the consumer's own client-node KubeConfig (one copy of client-node, 2.x)", async () => {
    // client-node is a peer dependency: the consumer's own install is the one reconcilekit uses, so its
    // KubeConfig class (private members and all) is the type reconcilekit's options name.
    const { stdout } = await run('npm', ['ls', '--all', '--parseable', '@kubernetes/client-node'], {
      cwd: consumer,
    });
    const copies = stdout.split('\n').filter((l) => l.endsWith('@kubernetes/client-node'));
    expect(copies).toHaveLength(1);
    const installed = JSON.parse(readFileSync(join(copies[0]!, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(installed.version).toMatch(/^2\./);
    const dir = join(scratch, 'own-kubeconfig');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          types: ['node'],
          skipLibCheck: true,
        },
        include: ['*.ts'],
      }),
    );
    writeFileSync(
      join(dir, 'own-kubeconfig.ts'),
      [
        `import { KubeConfig } from '@kubernetes/client-node';`,
        `import { ObjectClient, Operator } from 'reconcilekit';`,
        `const kubeConfig = new KubeConfig();`,
        `export const client = new ObjectClient({ kubeConfig });`,
        `export const operator = new Operator({ kubeConfig });`,
        `// @ts-expect-error a plain object is not a KubeConfig`,
        `export const bad = new ObjectClient({ kubeConfig: { clusters: [] } });`,
      ].join('\n'),
    );
    await typeCheck(consumer, dir);
  });

  it('answers probes from the health server’s worker thread (the bundle finds its script) and exits when closed', async () => {
    const file = join(scratch, 'probes.mjs');
    writeFileSync(
      file,
      [
        `import { HealthServer } from 'reconcilekit';`,
        `import { Registry } from 'prom-client';`,
        `const server = new HealthServer({ host: '127.0.0.1', port: 0, registry: new Registry(), readinessChecks: { ok: () => undefined } });`,
        `const url = await server.start();`,
        `const text = async (path) => { const r = await fetch(url + path); return r.status + ' ' + (await r.text()); };`,
        `const answers = [await text('/healthz?verbose'), await text('/readyz?verbose'), (await text('/metrics')).slice(0, 3)];`,
        `await server.close();`,
        `console.log(JSON.stringify(answers));`,
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, [file], { cwd: scratch, timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual([
      '200 [+]main-loop ok\nok\n',
      '200 [+]main-loop ok\n[+]ok ok\nok\n',
      '200',
    ]);
  });

  it('runs `npx reconcilekit --help`', async () => {
    const { stdout } = await run('npx', ['--no-install', 'reconcilekit', '--help'], { cwd: scratch });
    expect(stdout).toMatch(/usage: reconcilekit <command>/);
    expect(stdout).toMatch(/\binit\b/);
  });
});
