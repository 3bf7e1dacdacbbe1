// Rewrites a package's dist/lib (tsc's output, one file per module) as the published form: one file per
// package.json `exports` entry and for the CLI, plus shared chunks. Node's ES module loader pays per file
// (resolve, read, compile, link), and the root entry re-exports every front end, so loading ~230 files was
// most of `import('reconcilekit')`. The entries are bundled together, so a class shared by two subpaths
// lives in one chunk: `instanceof` holds across `reconcilekit` and `reconcilekit/crud`. Declarations
// (.d.ts) are kept as tsc wrote them. Dependencies stay imports (resolved from the installed package).
//
//   node scripts/bundle-dist.mjs [packageDir]     (default: the current directory)
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { build } from 'rolldown';

const root = resolve(process.argv[2] ?? '.');
const lib = join(root, 'dist/lib');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Every entry a user or the CLI loads by path: package.json `exports`, the CLI, and worker-thread files. */
function entryFiles() {
  const files = new Set();
  for (const target of Object.values(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.default;
    if (typeof file === 'string' && file.startsWith('./dist/lib/') && file.endsWith('.js'))
      files.add(file.slice(2));
  }
  files.add('dist/lib/cli/main.js');
  return [...files];
}

// A worker thread is started from a file next to the module that starts it (`new URL('./x.js',
// import.meta.url)`); such modules end up in a chunk at the top of dist/lib, so the worker's entry goes there.
const WORKERS = {
  'dry-run-proxy-worker': 'dist/lib/plan/dry-run-proxy-worker.js',
  'health-probe-worker': 'dist/lib/observability/health-probe-worker.js',
};

const input = {};
for (const file of entryFiles()) {
  if (!existsSync(join(root, file))) throw new Error(`bundle-dist: ${file} is missing: build with tsc first`);
  input[relative(lib, join(root, file)).replace(/\.js$/, '')] = join(root, file);
}
for (const [name, file] of Object.entries(WORKERS)) input[name] = join(root, file);

/**
 * The modules a program loads with `import('reconcilekit')`: the root entry's static imports, followed through
 * tsc's output. They go into one chunk, so the root entry is a couple of files however the other entries
 * share their modules (left alone, the bundler makes a chunk per distinct set of entries: ~55 files).
 */
function staticGraph(entry) {
  const seen = new Set();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/\bfrom\s+'(\.{1,2}\/[^']+\.js)'/g)) {
      queue.push(join(dirname(file), m[1]));
    }
  }
  return seen;
}
const core = staticGraph(join(lib, 'index.js'));

const out = join(root, 'dist/lib.bundle');
rmSync(out, { recursive: true, force: true });
await build({
  input,
  platform: 'node',
  logLevel: 'warn',
  // A module reached both statically and through `import()` stays where the static import puts it: known.
  onLog: (level, log, handler) => {
    if (log.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') handler(level, log);
  },
  transform: { target: 'esnext' },
  // Packages (dependencies, peer dependencies, node: built-ins) are loaded from where they are installed;
  // the bundler's own helpers are inlined.
  external: (id) =>
    !id.startsWith('.') && !isAbsolute(id) && !id.startsWith('\0') && !id.startsWith('@oxc-project/runtime/'),
  output: {
    dir: out,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunk-[name]-[hash].js',
    sourcemap: false,
    codeSplitting: { groups: [{ name: 'core', test: (id) => core.has(id) }] },
  },
});

for (const [name, file] of Object.entries(WORKERS)) {
  const starter = readdirSync(out).filter(
    (f) => f.endsWith('.js') && readFileSync(join(out, f), 'utf8').includes(`"./${file.split('/').pop()}"`),
  );
  if (starter.length === 0) throw new Error(`bundle-dist: no top-level chunk starts the worker ${name}`);
}

// Replace tsc's JavaScript (and its maps) with the bundle; keep the declarations.
for (const entry of readdirSync(lib, { withFileTypes: true, recursive: true })) {
  if (entry.isFile() && /\.js(\.map)?$/.test(entry.name)) rmSync(join(entry.parentPath, entry.name));
}
for (const entry of readdirSync(out, { withFileTypes: true, recursive: true })) {
  if (!entry.isFile()) continue;
  const from = join(entry.parentPath, entry.name);
  renameSync(from, join(lib, relative(out, from)));
}
rmSync(out, { recursive: true, force: true });
