// Docs that compile (docs/contributing-docs.md): every ```ts block of README.md and docs/*.md is a complete
// file type-checked against the packed package in a project outside the repository, or marked
// `fragment`. Getting started is also run: its test passes under `node --test`, and its main script
// reconciles a Greeting on an embedded API server and exits 0 on SIGTERM.
import { execFile, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer } from '../../lib/apiserver/index.js';
import { ObjectClient } from '../../lib/kube/object-client.js';
import { installCrds, readManifests, waitFor } from '../../lib/testing/index.js';
import { consumerProject, packedTarball, ROOT, typeCheck } from './support/packed.js';

const run = promisify(execFile);

/** A fenced code block: language, `fragment` or `file=<path>`, body. */
interface Block {
  page: string;
  line: number;
  lang: string;
  file: string | undefined;
  fragment: boolean;
  body: string;
}

const CHECKED_LANGS = new Set(['ts', 'typescript']);

/** The fenced blocks of a Markdown page; an unknown attribute on a ts block is an error (a typo'd marker). */
export function extractBlocks(page: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  const fence = /^```(\S*)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (let m = fence.exec(markdown); m !== null; m = fence.exec(markdown)) {
    const [, lang = '', rest = '', body = ''] = m;
    const attrs = rest.trim().split(/\s+/).filter(Boolean);
    const line = markdown.slice(0, m.index).split('\n').length;
    const file = attrs.find((a) => a.startsWith('file='))?.slice('file='.length);
    const fragment = attrs.includes('fragment');
    const unknown = attrs.filter((a) => a !== 'fragment' && !a.startsWith('file='));
    if (CHECKED_LANGS.has(lang) && (unknown.length > 0 || (fragment && file !== undefined))) {
      throw new Error(
        `${page}:${String(line)}: unknown code block attributes "${rest.trim()}" (use "fragment" or "file=<path>")`,
      );
    }
    blocks.push({ page, line, lang, file, fragment, body });
  }
  return blocks;
}

const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const DEFAULT_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    types: ['node'],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  },
  include: ['**/*.ts'],
};

let consumer: string;
let scratch = '';

/** Writes a page's checked blocks (and its file= json/yaml) into its own project directory. */
function writePage(page: string): { dir: string; checked: Block[] } {
  const blocks = extractBlocks(page, readFileSync(join(ROOT, page), 'utf8'));
  const checked = blocks.filter((b) => CHECKED_LANGS.has(b.lang) && !b.fragment);
  const dir = join(scratch, page.replace(/[/.]/g, '-'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(DEFAULT_TSCONFIG));
  for (const b of blocks) {
    if (b.file === undefined || b.fragment) continue;
    mkdirSync(dirname(join(dir, b.file)), { recursive: true });
    writeFileSync(join(dir, b.file), b.body);
  }
  checked.forEach((b, i) => {
    if (b.file === undefined)
      writeFileSync(join(dir, `block-${String(i + 1)}-line-${String(b.line)}.ts`), b.body);
  });
  return { dir, checked };
}

beforeAll(async () => {
  consumer = await consumerProject();
  scratch = join(consumer, `docs-${String(process.pid)}`);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(join(scratch, 'node_modules'), { recursive: true });
  // Test examples in the docs use vitest: resolve it from this repository (the consumer does not install it).
  symlinkSync(join(ROOT, 'node_modules/vitest'), join(scratch, 'node_modules/vitest'), 'dir');
}, 300_000);

afterAll(() => {
  if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
});

describe('code blocks of README.md and docs/', () => {
  it('are complete files or marked fragments; a typo in the marker is caught', () => {
    const all = PAGES.flatMap((p) => extractBlocks(p, readFileSync(join(ROOT, p), 'utf8')));
    const ts = all.filter((b) => CHECKED_LANGS.has(b.lang));
    expect(ts.filter((b) => !b.fragment).length).toBeGreaterThanOrEqual(6);
    expect(() => extractBlocks('x.md', '```ts fragmnet\nconst a = 1;\n```\n')).toThrow(
      'x.md:1: unknown code block attributes "fragmnet" (use "fragment" or "file=<path>")',
    );
  });

  it('of every other page type-check against the packed package (one tsc run over all pages)', async () => {
    const pages = PAGES.filter((p) => p !== 'docs/getting-started.md').map(writePage);
    expect(pages.filter((p) => p.checked.length > 0).length).toBeGreaterThanOrEqual(2); // README, apiserver
    // One project over every page's directory: tsc starts once; errors name the page's directory and block line.
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({ ...DEFAULT_TSCONFIG, include: pages.map((p) => `${basename(p.dir)}/**/*.ts`) }),
    );
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    await typeCheck(consumer, scratch);
  }, 120_000);

  it('getting started runs literally: sections 0-4 in order in a fresh directory, then `npm test`', async () => {
    // The page as one shell script: its sh blocks verbatim (the tarball path put in), each file block
    // written where it stands, so a step that undoes an earlier one (a package.json written after the
    // installs) fails here as it would for a reader.
    const markdown = readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8');
    const untilRun = markdown.slice(0, markdown.indexOf('\n## 5.'));
    const tarball = await packedTarball();
    const script = ['set -euo pipefail'];
    for (const b of extractBlocks('docs/getting-started.md', untilRun)) {
      if (b.lang === 'sh') script.push(b.body.replaceAll('/path/to/reconcilekit-0.1.0.tgz', tarball));
      else if (b.file !== undefined && !b.fragment)
        script.push(
          `mkdir -p "$(dirname '${b.file}')"`,
          `cat > '${b.file}' <<'DOC_FILE_END'\n${b.body}DOC_FILE_END`,
        );
    }
    expect(script.join('\n')).toContain('npm install --save-dev typescript @types/node');
    script.push('npm test');
    const fresh = mkdtempSync(join(tmpdir(), 'reconcilekit-getting-started-'));
    try {
      const { stdout } = await run('bash', ['-c', script.join('\n')], {
        cwd: fresh,
        timeout: 400_000,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          ...process.env,
          npm_config_prefer_offline: 'true',
          npm_config_audit: 'false',
          npm_config_fund: 'false',
        },
      }).catch((e: unknown) => {
        const out = e as { stdout?: string; stderr?: string };
        throw new Error(`getting started, run literally, failed:\n${out.stdout ?? ''}${out.stderr ?? ''}`, {
          cause: e,
        });
      });
      expect(stdout).toMatch(/(?:#|ℹ) pass 1\b/);
      const pkg = JSON.parse(readFileSync(join(fresh, 'greeting-operator/package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      expect(Object.keys(pkg.dependencies ?? {}).sort()).toEqual(['@kubernetes/client-node', 'reconcilekit']);
      expect(Object.keys(pkg.devDependencies ?? {}).sort()).toEqual(['@types/node', 'typescript']);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  }, 420_000);

  it('getting started compiles, its test passes, its operator reconciles and drains on SIGTERM', async () => {
    const { dir, checked } = writePage('docs/getting-started.md');
    expect(checked.map((b) => b.file)).toEqual([
      'src/greeting.ts',
      'src/greeting-configmap.ts',
      'src/main.ts',
      'test/greeting.test.ts',
    ]);
    // The page's own package.json and tsconfig.json (it emits to dist/, as `npm run build` does).
    const tsc = join(consumer, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', dir], { cwd: dir }).catch((e: unknown) => {
      throw new Error(`getting started does not compile:\n${(e as { stdout?: string }).stdout ?? ''}`, {
        cause: e,
      });
    });
    // As the page's `npm test` (`node --test dist/test/*.test.js`, the shell expanding the glob): Node 22+
    // no longer walks a directory argument, so the files are named.
    const testFiles = readdirSync(join(dir, 'dist/test'))
      .filter((f) => f.endsWith('.test.js'))
      .map((f) => join('dist/test', f));
    const { stdout } = await run(process.execPath, ['--test', ...testFiles], { cwd: dir, timeout: 150_000 });
    // The spec reporter (`ℹ pass 1`) on Node 22+ without a TTY.
    expect(stdout).toMatch(/(?:#|ℹ) pass 1\b/);

    // Section 5's `reconcilekit generate crd`, as written, from the kind the built module exports.
    const generate = /^npx (reconcilekit generate crd .*)$/m.exec(
      readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8'),
    );
    expect(generate?.[1]).toBe('reconcilekit generate crd dist/src/greeting.js --out deploy');
    const cli = join(consumer, 'node_modules/reconcilekit/bin/reconcilekit.js');
    await run(process.execPath, [cli, ...(generate?.[1] ?? '').split(' ').slice(1)], { cwd: dir });
    const [crd] = await readManifests(join(dir, 'deploy/crd.yaml'));
    expect(crd?.metadata?.name).toBe('greetings.example.com');

    const server = await startApiServer({ host: '127.0.0.1', port: 0 });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(server.kubeconfig);
    const client = new ObjectClient({ kubeConfig });
    try {
      await installCrds(client, await readManifests(join(dir, 'deploy/crd.yaml')));
      server.writeKubeconfig(join(dir, 'kubeconfig'));
      const operator = spawn(process.execPath, ['dist/src/main.js'], {
        cwd: dir,
        env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), LOG_LEVEL: 'error' },
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((resolve) => operator.on('exit', resolve));
      await client.create({
        apiVersion: 'example.com/v1',
        kind: 'Greeting',
        metadata: { name: 'docs', namespace: 'default' },
        spec: { message: 'from the docs' },
      } as KubernetesObject);
      const cm = await waitFor(
        () =>
          client.get<KubernetesObject & { data?: Record<string, string> }>({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            plural: 'configmaps',
            namespace: 'default',
            name: 'docs-greeting',
          }),
        { timeoutMs: 60_000, description: 'the ConfigMap of Greeting docs' },
      );
      expect(cm.data).toEqual({ message: 'from the docs' });
      operator.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      client.close();
      await server.close();
    }
  }, 300_000);
});
