import { readFile, stat } from 'node:fs/promises';
import type { Document, LineCounter } from 'yaml';
import { yamlModule } from '../util/yaml.js';
import { checkOperatorSpec } from './check-controller-spec.js';
import { DeclarativeSpecError } from './declarative-spec-error.js';
import { MAX_SPEC_ALIAS_COUNT, MAX_SPEC_BYTES, type OperatorSpec } from './operator-spec.js';

/**
 * Reads an operator spec from YAML (or JSON) text: either the spec itself (`controllers: [...]`) or an
 * Operator object that holds it under `spec` (`apiVersion: …, kind: Operator, spec: {controllers: …}`).
 * Throws a {@link DeclarativeSpecError} naming `source` and, for a syntax error, the line and column.
 *
 * Hostile text is refused, not expanded: more than MAX_SPEC_BYTES, an alias bomb (aliases expanding past
 * the `yaml` library's `maxAliasCount` of MAX_SPEC_ALIAS_COUNT), a recursive alias (`&a [*a]`), and
 * (checkOperatorSpec) a spec too large or too deep once read.
 * @category Declarative operators
 */
export function parseOperatorSpec(text: string, source = 'spec'): OperatorSpec {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_SPEC_BYTES) {
    throw new DeclarativeSpecError(
      source,
      `the spec is ${String(bytes)} bytes, more than MAX_SPEC_BYTES (${String(MAX_SPEC_BYTES)}): split it into several files`,
    );
  }
  const doc = readYaml(text, source);
  if (
    typeof doc === 'object' &&
    doc !== null &&
    !Array.isArray(doc) &&
    !Object.hasOwn(doc, 'controllers') &&
    Object.hasOwn(doc, 'spec')
  ) {
    return checkIn(source, 'spec', (doc as { spec: unknown }).spec);
  }
  return checkIn(source, '', doc);
}

/** One YAML document as plain data; syntax errors, recursive aliases and alias bombs are located spec errors. */
function readYaml(text: string, source: string): unknown {
  // merge: `<<: *base` keys, as js-yaml (and kubectl) read them.
  const lines = new (yamlModule().LineCounter)();
  const document = yamlModule().parseDocument(text, { merge: true, prettyErrors: true, lineCounter: lines });
  const syntax = document.errors[0];
  if (syntax !== undefined) {
    const at = syntax.linePos?.[0];
    const where = at === undefined ? '' : ` (line ${String(at.line)}, column ${String(at.col)})`;
    const what = syntax.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? syntax.code;
    throw new DeclarativeSpecError(source, `not valid YAML: ${what}${where}`, { cause: syntax });
  }
  const recursive = recursiveAlias(document, lines);
  if (recursive !== undefined) {
    throw new DeclarativeSpecError(
      source,
      `the YAML alias *${recursive.name}${recursive.where} refers to the node that contains it: a spec must be a tree (copy the part you meant to repeat)`,
    );
  }
  try {
    return document.toJS({ maxAliasCount: MAX_SPEC_ALIAS_COUNT });
  } catch (e) {
    if (e instanceof ReferenceError && /alias/i.test(e.message)) {
      throw new DeclarativeSpecError(
        source,
        `YAML aliases expand too much (more than maxAliasCount ${String(MAX_SPEC_ALIAS_COUNT)}, weighted by what each repeats): an alias bomb? Write the repeated parts out`,
        { cause: e },
      );
    }
    throw new DeclarativeSpecError(source, `not valid YAML: ${(e as Error).message}`, { cause: e });
  }
}

/** The first alias that sits inside the node its anchor names (which would read as an endless tree). */
function recursiveAlias(document: Document, lines: LineCounter): { name: string; where: string } | undefined {
  let found: { name: string; where: string } | undefined;
  const { visit } = yamlModule();
  visit(document, {
    Alias(_key, node, path) {
      const target = node.resolve(document);
      if (target === undefined || !path.includes(target)) return undefined;
      const at = node.range === undefined || node.range === null ? undefined : lines.linePos(node.range[0]);
      found = {
        name: node.source,
        where: at === undefined ? '' : ` (line ${String(at.line)}, column ${String(at.col)})`,
      };
      return visit.BREAK;
    },
  });
  return found;
}

/** {@link checkOperatorSpec} with errors read as `<source>: <field>: <problem>` (`ops.yaml: controllers: …`). */
function checkIn(source: string, path: string, doc: unknown): OperatorSpec {
  try {
    return checkOperatorSpec(doc, path);
  } catch (e) {
    if (!(e instanceof DeclarativeSpecError)) throw e;
    throw new DeclarativeSpecError(e.path === '' ? source : `${source}: ${e.path}`, e.problem, { cause: e });
  }
}

/**
 * Reads and parses an operator spec file ({@link parseOperatorSpec}); errors name the file. A file over
 * MAX_SPEC_BYTES is refused before it is read.
 * @category Declarative operators
 */
export async function loadOperatorSpec(path: string, signal?: AbortSignal): Promise<OperatorSpec> {
  const size = (await stat(path)).size;
  if (size > MAX_SPEC_BYTES) {
    throw new DeclarativeSpecError(
      path,
      `the spec is ${String(size)} bytes, more than MAX_SPEC_BYTES (${String(MAX_SPEC_BYTES)}): split it into several files`,
    );
  }
  const text = await readFile(path, { encoding: 'utf8', ...(signal === undefined ? {} : { signal }) });
  return parseOperatorSpec(text, path);
}
