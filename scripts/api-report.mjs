#!/usr/bin/env node
// The public API surface, one section per package entry (package.json `exports`): every exported name with
// its declaration as a user sees it (functions and constants by type, classes by their public members,
// interfaces and type aliases as declared, without comments). `make api-report` writes api/reconcilekit.api.md;
// `make lint` runs this with --check and fails when the committed report differs, so a change of the
// public surface is a visible diff in review.
// Usage: node scripts/api-report.mjs [--check]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const REPORT = join(ROOT, 'api/reconcilekit.api.md');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** package entry name → its source file (from the `types` condition: dist/lib/x.d.ts → lib/x.ts). */
const entries = Object.entries(pkg.exports)
  .filter(([, target]) => typeof target === 'object' && target.types !== undefined)
  .map(([sub, target]) => ({
    name: sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`,
    file: join(ROOT, target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')),
  }))
  // Subpaths first: a name is printed in full once, where it lives; the root lists where it comes from.
  .sort((a, b) => Number(a.name === pkg.name) - Number(b.name === pkg.name) || a.name.localeCompare(b.name));

const missing = entries.filter((e) => !existsSync(e.file));
for (const e of missing) console.error(`package.json exports ${e.name}, but ${e.file} does not exist`);
const present = entries.filter((e) => existsSync(e.file));
const program = ts.createProgram(
  present.map((e) => e.file),
  {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  },
);
const checker = program.getTypeChecker();
const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;

const oneLine = (text) => text.replace(/\s*\n\s*/g, ' ');
const typeText = (type, node) => oneLine(checker.typeToString(type, node, FLAGS));
const print = (node) => printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile());
const isHidden = (decl) =>
  decl !== undefined &&
  ((ts.getCombinedModifierFlags(decl) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0 ||
    (decl.name !== undefined && ts.isPrivateIdentifier(decl.name)));

function signatures(type, node, prefix) {
  return type
    .getCallSignatures()
    .map((s) => `${prefix}${oneLine(checker.signatureToString(s, node, FLAGS))};`);
}

/** The public members of a class, one line each. */
function classLines(symbol, decl) {
  const heritage = (decl.heritageClauses ?? []).map((h) => ` ${oneLine(h.getText())}`).join('');
  const params = decl.typeParameters ? `<${decl.typeParameters.map((p) => p.getText()).join(', ')}>` : '';
  const lines = [`class ${symbol.name}${params}${heritage} {`];
  const staticType = checker.getTypeOfSymbolAtLocation(symbol, decl);
  for (const s of staticType.getConstructSignatures()) {
    const decl2 = s.getDeclaration();
    if (decl2 !== undefined && isHidden(decl2)) continue;
    lines.push(`  constructor${oneLine(checker.signatureToString(s, decl, FLAGS)).replace(/:[^:]*$/, '')};`);
    break;
  }
  const member = (m, isStatic) => {
    const d = m.valueDeclaration ?? m.declarations?.[0];
    if (d === undefined || isHidden(d) || m.name === 'prototype') return [];
    // Members declared by this class (parameter properties included), not inherited ones.
    const owner = ts.isParameter(d) ? d.parent.parent : d.parent;
    if (owner !== decl) return [];
    const pre = isStatic ? '  static ' : '  ';
    // A symbol-keyed member prints as its key expression (the checker's name carries a per-run id).
    const key =
      d.name !== undefined && ts.isComputedPropertyName(d.name) ? `[${d.name.expression.getText()}]` : m.name;
    const t = checker.getTypeOfSymbolAtLocation(m, decl);
    if (ts.isMethodDeclaration(d) || ts.isMethodSignature(d)) return signatures(t, decl, `${pre}${key}`);
    const getter = ts.isGetAccessorDeclaration(d);
    const hasSetter = m.declarations?.some((x) => ts.isSetAccessorDeclaration(x)) ?? false;
    const ro = (getter && !hasSetter) || (ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Readonly) !== 0;
    const opt = (m.flags & ts.SymbolFlags.Optional) !== 0 ? '?' : '';
    return [`${pre}${ro ? 'readonly ' : ''}${key}${opt}: ${typeText(t, decl)};`];
  };
  for (const m of checker.getPropertiesOfType(staticType)) lines.push(...member(m, true));
  for (const m of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol)))
    lines.push(...member(m, false));
  lines.push('}');
  return lines;
}

/** The declaration of one exported name as text. */
function describe(name, symbol) {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const out = [];
  for (const decl of target.declarations ?? []) {
    if (ts.isClassDeclaration(decl)) out.push(...classLines(target, decl));
    else if (ts.isFunctionDeclaration(decl)) {
      if (
        decl.body !== undefined &&
        (target.declarations ?? []).some(
          (d) => d !== decl && ts.isFunctionDeclaration(d) && d.body === undefined,
        )
      )
        continue;
      out.push(
        ...signatures(checker.getTypeOfSymbolAtLocation(target, decl), decl, `function ${name}`).slice(0, 1),
      );
    } else if (ts.isVariableDeclaration(decl)) {
      out.push(`const ${name}: ${typeText(checker.getTypeOfSymbolAtLocation(target, decl), decl)};`);
    } else if (
      ts.isInterfaceDeclaration(decl) ||
      ts.isTypeAliasDeclaration(decl) ||
      ts.isEnumDeclaration(decl)
    ) {
      const text = print(decl).replace(/^export (declare )?/, '');
      out.push(
        ...(name === target.name ? text : text.replace(target.name, `${target.name} as ${name}`)).split('\n'),
      );
    } else if (ts.isModuleDeclaration(decl)) {
      out.push(`namespace ${name} { … }`);
    }
  }
  // Overloads: a function lists each signature once.
  return [...new Set(out)];
}

const sections = [
  `# ${pkg.name} — public API`,
  '',
  'Generated by `make api-report` (scripts/api-report.mjs); `make lint` fails when the surface differs from this',
  'file. One section per package entry; a name is written out once, in its subpath, and the root entry says',
  'which subpath it re-exports.',
];
const home = new Map();
for (const entry of present) {
  const source = program.getSourceFile(entry.file);
  if (source === undefined) throw new Error(`${entry.file}: not found (package.json exports)`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  const exported = moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol);
  const own = [];
  const borrowed = new Map();
  for (const symbol of [...exported].sort((a, b) => a.name.localeCompare(b.name))) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const from = home.get(target);
    if (from !== undefined && from !== entry.name) {
      borrowed.set(from, [...(borrowed.get(from) ?? []), symbol.name]);
      continue;
    }
    home.set(target, entry.name);
    own.push(...describe(symbol.name, symbol));
  }
  sections.push('', `## ${entry.name}`, '');
  for (const [from, names] of borrowed)
    sections.push(`Re-exported from \`${from}\`: ${names.join(', ')}.`, '');
  sections.push('```ts', ...own, '```');
}
const report = `${sections.join('\n')}\n`;

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(REPORT, 'utf8');
  } catch {
    // missing: reported below as a difference
  }
  if (committed !== report) {
    const a = committed.split('\n');
    const b = report.split('\n');
    const gone = a.filter((l) => !b.includes(l)).slice(0, 20);
    const added = b.filter((l) => !a.includes(l)).slice(0, 20);
    console.error(
      'The public API differs from api/reconcilekit.api.md. If the change is meant, run `make api-report` and commit the report.',
    );
    for (const l of gone) console.error(`- ${l}`);
    for (const l of added) console.error(`+ ${l}`);
    process.exit(1);
  }
  if (missing.length > 0) process.exit(1);
  console.log(`api report: ${String(entries.length)} entries match api/reconcilekit.api.md`);
} else {
  writeFileSync(REPORT, report);
  console.log(`wrote api/reconcilekit.api.md (${String(present.length)} entries)`);
  if (missing.length > 0) process.exit(1);
}
