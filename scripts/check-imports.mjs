#!/usr/bin/env node
// The import graph of lib/, checked in `make lint` (the layer rules themselves are ESLint's: eslint-layers.js):
//  - no import cycle between files. Only imports that load code count: `import type` and type-only
//    specifiers are erased by the compiler and `import()` loads lazily, so neither can leave a module
//    half-initialised; cycles between areas, types included, are what the layer rules forbid.
//  - the root entry stays light: loading `reconcilekit` loads neither the embedded API server, its CEL
//    evaluator, the CLI, the test helpers (each has its own subpath), node-forge (the webhook CA writer,
//    loaded when an operator makes its own CA), nor client-node, winston, prom-client, OpenTelemetry or
//    yaml (loaded on first use through lib/util/lazy-module.ts).
// Usage: node scripts/check-imports.mjs   (exit 1 with the cycles / paths found)
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const LIB = join(ROOT, 'lib');
const ROOT_ENTRY = 'lib/index.ts';
const NOT_FROM_ROOT = [
  /^lib\/apiserver\//,
  /^lib\/cli\//,
  /^lib\/testing\//,
  /^@marcbachmann\/cel-js/,
  /^node-forge$/,
  /^@kubernetes\/client-node/,
  /^winston$/,
  /^prom-client$/,
  /^@opentelemetry\/api/,
  /^yaml$/,
];

/** Every .ts file under lib/, relative to the repository root. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Whether an import or export declaration loads the module at run time. */
function loadsCode(node) {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (clause === undefined) return true; // import './side-effect.js'
    if (clause.isTypeOnly) return false;
    if (clause.name !== undefined) return true;
    const named = clause.namedBindings;
    return named === undefined || !ts.isNamedImports(named) || named.elements.some((e) => !e.isTypeOnly);
  }
  if (node.isTypeOnly) return false;
  const clause = node.exportClause;
  return clause === undefined || !ts.isNamedExports(clause) || clause.elements.some((e) => !e.isTypeOnly);
}

/** file → the files (or package names) it loads at run time. */
function graph() {
  const edges = new Map();
  for (const file of sources(LIB)) {
    const from = relative(ROOT, file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    const targets = [];
    for (const node of source.statements) {
      if (!(ts.isImportDeclaration(node) || ts.isExportDeclaration(node))) continue;
      if (node.moduleSpecifier === undefined || !ts.isStringLiteral(node.moduleSpecifier)) continue;
      if (!loadsCode(node)) continue;
      const spec = node.moduleSpecifier.text;
      targets.push(
        spec.startsWith('.') ? relative(ROOT, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))) : spec,
      );
    }
    edges.set(from, targets);
  }
  return edges;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(edges) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** One shortest load path from `start` to each module it loads, directly or not. */
function loadPaths(edges, start) {
  const via = new Map([[start, [start]]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of edges.get(v) ?? []) {
      if (via.has(w)) continue;
      via.set(w, [...via.get(v), w]);
      queue.push(w);
    }
  }
  return via;
}

const edges = graph();
const problems = [];
for (const component of cycles(edges)) {
  problems.push(`import cycle between ${String(component.length)} files: ${component.join(', ')}`);
}
for (const [module, path] of loadPaths(edges, ROOT_ENTRY)) {
  if (NOT_FROM_ROOT.some((re) => re.test(module))) {
    problems.push(
      `the root entry loads ${module} (keep it to its subpath, or load it on first use): ${path.join(' → ')}`,
    );
  }
}
if (problems.length > 0) {
  for (const p of problems) console.error(p);
  process.exit(1);
}
console.log(`imports: ${String(edges.size)} files in lib/, no cycles, root entry light`);
