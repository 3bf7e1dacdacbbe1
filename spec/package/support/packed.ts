// One `npm pack` tarball and one installed consumer project per build, shared by every spec that needs
// them (package, docs-compile, init) and by parallel test workers: the first worker packs and installs
// under a lock directory, the others wait for its result. Keyed by the build's newest file, so a new build
// packs again and an unchanged one reuses the tarball across runs. Installs use npm's cache
// (`--prefer-offline`), and the versions `init` writes are the ones this repository already installed.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
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
import { basename, join, resolve } from 'node:path';
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

/**
 * The lines of README.md's "Start a project" block, as a reader runs them from the directory that holds
 * the clone (`./reconcilekit/reconcilekit-<version>.tgz`): `npx --yes --package <tgz> reconcilekit init … --reconcilekit
 * <tgz>`, `cd`, `npm install`, `npm test`.
 */
export function readmeInitLines(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /^( *)```sh\n((?:\1.*\n)*?)\1```$/gm;
  for (let m = block.exec(readme); m !== null; m = block.exec(readme)) {
    const lines = (m[2] ?? '')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    if (lines[0]?.startsWith('npx --yes --package ') === true && lines[0].includes(' reconcilekit init '))
      return lines;
  }
  throw new Error('README.md has no sh block starting with `npx --yes --package … reconcilekit init`');
}

/** npm settings of every install here, through the environment so the documented commands run as written. */
export const NPM_ENV = {
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_progress: 'false',
  npm_config_loglevel: 'error',
};

/**
 * A project made by `reconcilekit init` (kind `Greeting`) as README.md says, with `npm install` done: in a
 * fresh directory holding only `reconcilekit/<the packed tarball>` (what the clone-and-pack step leaves),
 * README's lines run as written — all but the last, `npm test`, which the init spec runs. The one install
 * every package spec shares: the others write their files into sub-directories of it (Node and TypeScript
 * find its node_modules, which hold reconcilekit, @kubernetes/client-node, typescript and @types/node).
 */
export async function consumerProject(): Promise<string> {
  const tarball = await packedTarball();
  const base = join(resolve(tarball, '..'), 'consumer');
  const lines = readmeInitLines();
  const dir = /^cd (\S+)$/.exec(lines.find((l) => l.startsWith('cd ')) ?? '')?.[1] ?? 'greeting-operator';
  const project = join(base, dir);
  // The marker and its lock sit beside base/, which the install makes afresh.
  await once(`${base}.installed`, async () => {
    rmSync(base, { recursive: true, force: true });
    mkdirSync(join(base, 'reconcilekit'), { recursive: true });
    copyFileSync(tarball, join(base, 'reconcilekit', basename(tarball)));
    const script = [
      'set -euo pipefail',
      ...lines.filter((l, i) => !(i === lines.length - 1 && l === 'npm test')),
    ];
    await run('bash', ['-c', script.join('\n')], {
      cwd: base,
      timeout: 400_000,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, ...NPM_ENV },
    }).catch((e: unknown) => {
      const out = e as { stdout?: string; stderr?: string };
      throw new Error(`README's init lines failed:\n${out.stdout ?? ''}${out.stderr ?? ''}`, { cause: e });
    });
    writeFileSync(`${base}.installed`, '');
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
