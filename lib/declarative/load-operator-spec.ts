import { readFile } from 'node:fs/promises';
import { loadYaml } from '@kubernetes/client-node';
import { checkOperatorSpec } from './check-controller-spec.js';
import { DeclarativeSpecError } from './declarative-spec-error.js';
import type { OperatorSpec } from './operator-spec.js';

/**
 * Reads an operator spec from YAML (or JSON) text: either the spec itself (`controllers: [...]`) or an
 * Operator object that holds it under `spec` (`apiVersion: …, kind: Operator, spec: {controllers: …}`).
 * Throws a {@link DeclarativeSpecError} naming `source` and, for a syntax error, the line and column.
 *
 * Parsed with client-node's `loadYaml` (js-yaml, already a dependency), nested under one key so that
 * client-node does not convert a document that happens to carry `apiVersion`/`kind` into a typed model.
 * @category Declarative operators
 */
export function parseOperatorSpec(text: string, source = 'spec'): OperatorSpec {
  let doc: unknown;
  try {
    doc = loadYaml<{ document?: unknown }>(`document:\n${text.replace(/^(?=.)/gm, '  ')}`).document;
  } catch (e) {
    const message = (e as Error).message.replace(
      /\((\d+):(\d+)\)/,
      (_, l: string, c: string) =>
        `(line ${String(Number(l) - 1)}, column ${String(Math.max(1, Number(c) - 2))})`,
    );
    throw new DeclarativeSpecError(source, `not valid YAML: ${message.split('\n')[0] ?? message}`, {
      cause: e,
    });
  }
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
 * Reads and parses an operator spec file ({@link parseOperatorSpec}); errors name the file.
 * @category Declarative operators
 */
export async function loadOperatorSpec(path: string, signal?: AbortSignal): Promise<OperatorSpec> {
  const text = await readFile(path, { encoding: 'utf8', ...(signal === undefined ? {} : { signal }) });
  return parseOperatorSpec(text, path);
}
