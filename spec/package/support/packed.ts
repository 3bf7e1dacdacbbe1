// One `npm pack` tarball and one installed consumer project per build, shared by every spec that needs
// them (package, docs-compile, init) and by parallel test workers: the first worker packs and installs
// under a lock directory, the others wait for its result. Keyed by the build's newest file, so a new build
// packs again and an unchanged one reuses the tarball across runs. Installs use npm's cache
// (`--prefer-offline`), and the versions `init` writes are the ones this repository already installed.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);
const LOCK_STALE_MS = 5 * 60_000;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function workDir(): string {
  if (!existsSync(join(ROOT, 'dist/lib/index.js')) || !existsSync(join(ROOT, 'dist/lib/cli/main.js'))) {
    throw new Error('no build in dist/lib: run `npm run build` (or `make build`) before the package specs');
  }
  const key = createHash('sha256')
    .update(ROOT)
    .update(readFileSync(join(ROOT, 'package.json')))
    .update(String(newestMtime(join(ROOT, 'dist/lib'))))
    .update(String(newestMtime(join(ROOT, 'bin'))))
    .update(readFileSync(join(ROOT, 'scripts/bundle-dist.mjs')))
    .digest('hex')
    .slice(0, 16);
  const dir = join(tmpdir(), `reconcilekit-pack-${key}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Runs `make` once across workers: the winner of `mkdir lock` makes `done`, the others poll for it. */
async function once(done: string, make: () => Promise<void>): Promise<void> {
  const lock = `${done}.lock`;
  for (;;) {
    if (existsSync(done)) return;
    try {
      mkdirSync(lock);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() - since > LOCK_STALE_MS) {
        rmSync(lock, { recursive: true, force: true });
      }
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    try {
      if (!existsSync(done)) await make();
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/**
 * The path of `reconcilekit-<version>.tgz` packed from the current build. Packs with `--ignore-scripts`:
 * the `prepack` build would rewrite dist/ under the feet of specs running in parallel (the spec checks
 * that `prepack` builds; `make test` builds first). What `prepack` does after tsc, bundling dist/lib per
 * entry, is done here on a copy of the build.
 */
export async function packedTarball(): Promise<string> {
  const dir = workDir();
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
  const tarball = join(dir, `reconcilekit-${version}.tgz`);
  await once(tarball, async () => {
    const staging = join(dir, 'staging');
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging);
    // The package as `prepack` leaves it: a copy of the build, bundled per entry (scripts/bundle-dist.mjs).
    const source = join(dir, 'package');
    rmSync(source, { recursive: true, force: true });
    for (const part of ['package.json', 'README.md', 'LICENSE', 'bin', 'dist/lib']) {
      cpSync(join(ROOT, part), join(source, part), {
        recursive: true,
        filter: (from) => !from.endsWith('.map'),
      });
    }
    await run(process.execPath, [join(ROOT, 'scripts/bundle-dist.mjs'), source]);
    await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', staging], {
      cwd: source,
    });
    renameSync(join(staging, `reconcilekit-${version}.tgz`), tarball);
  });
  return tarball;
}

/** `npm install` options every spec uses: npm's cache first, no audit, no funding notes, no progress. */
export const NPM_INSTALL_FLAGS = [
  '--prefer-offline',
  '--no-audit',
  '--no-fund',
  '--no-progress',
  '--loglevel=error',
];

/**
 * A project made by `reconcilekit init` (kind `Greeting`) that depends on the packed tarball, with
 * `npm install` done: the one install every package spec shares. The init spec runs its `npm test`; the
 * others write their files into sub-directories of it (Node and TypeScript find its node_modules, which
 * hold reconcilekit, @kubernetes/client-node, typescript and @types/node, from there).
 */
export async function consumerProject(): Promise<string> {
  const tarball = await packedTarball();
  const project = join(resolve(tarball, '..'), 'greeting-operator');
  await once(`${project}.installed`, async () => {
    rmSync(project, { recursive: true, force: true });
    await run(process.execPath, [
      join(ROOT, 'bin/reconcilekit.js'),
      'init',
      project,
      '--reconcilekit',
      `file:${tarball}`,
    ]);
    await run('npm', ['install', ...NPM_INSTALL_FLAGS], { cwd: project, timeout: 240_000 });
    writeFileSync(`${project}.installed`, '');
  });
  return project;
}

/** Runs `tsc -p <dir>` with the consumer project's own TypeScript; rejects with tsc's output on errors. */
export async function typeCheck(consumer: string, dir: string): Promise<void> {
  const tsc = join(consumer, 'node_modules/typescript/bin/tsc');
  try {
    await run(process.execPath, [tsc, '-p', dir], { cwd: dir });
  } catch (e) {
    const out = e as { stdout?: string; stderr?: string };
    throw new Error(`tsc -p ${dir} failed:\n${out.stdout ?? ''}${out.stderr ?? ''}`, { cause: e });
  }
}
