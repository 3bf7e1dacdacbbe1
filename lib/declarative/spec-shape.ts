import { DeclarativeSpecError, pathAt } from './declarative-spec-error.js';
import { MAX_SPEC_DEPTH, MAX_SPEC_NODES } from './operator-spec.js';

/**
 * Refuses a spec value that is cyclic, nested deeper than MAX_SPEC_DEPTH, or holds more than
 * MAX_SPEC_NODES values counting every repeat of a shared sub-object (what compiling it would expand):
 * checked before anything walks the spec recursively. The error names where it was found.
 */
export function checkSpecShape(value: unknown, path: string): void {
  let nodes = 0;
  const ancestors = new Set<object>();
  const keys: (string | number)[] = [];
  const fail = (problem: string): never => {
    throw new DeclarativeSpecError(
      keys.reduce<string>((p, k) => pathAt(p, k), path),
      problem,
    );
  };
  const visit = (v: unknown): void => {
    nodes++;
    if (nodes > MAX_SPEC_NODES) {
      fail(
        `the spec holds more than ${String(MAX_SPEC_NODES)} values (counting each repeat of a YAML alias or shared object); split it or drop the repetition`,
      );
    }
    if (typeof v !== 'object' || v === null) return;
    if (ancestors.has(v)) {
      fail(
        'the spec refers to itself here (a recursive YAML alias or a cyclic object): a spec must be a tree',
      );
    }
    if (keys.length >= MAX_SPEC_DEPTH) fail(`nested more than ${String(MAX_SPEC_DEPTH)} levels deep`);
    ancestors.add(v);
    const entries: [string | number, unknown][] = Array.isArray(v)
      ? v.map((item, i) => [i, item])
      : Object.entries(v);
    for (const [k, item] of entries) {
      keys.push(k);
      visit(item);
      keys.pop();
    }
    ancestors.delete(v);
  };
  visit(value);
}
