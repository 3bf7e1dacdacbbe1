// docs/declarative.md's expression reference is checked against the code: every row of its table is
// evaluated on the document the page shows, and must give the result the page prints.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateExpression } from '../../lib/index.js';

const page = readFileSync(join(import.meta.dirname, '../../docs/declarative.md'), 'utf8');
const section = page.slice(page.indexOf('## Expression reference'));
const document: unknown = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)?.[1] ?? 'null');
const rows = [...section.matchAll(/^\| `([^`]+)` \| `([^`]+)` \| `([^`]*)` \| (.+) \|$/gm)].map((m) => ({
  operator: m[1] ?? '',
  example: m[2] ?? '',
  result: m[3] ?? '',
}));

describe('docs/declarative.md expression reference', () => {
  it('shows a document and one example for every operator of the language', () => {
    expect(document).toMatchObject({ metadata: { name: 'web' } });
    const documented = new Set(rows.map((r) => r.operator));
    for (const op of [
      '@and',
      '@or',
      '@not',
      '@eq',
      '@lt',
      '@lte',
      '@gt',
      '@gte',
      '@in',
      '@exists',
      '@isnil',
      '@cond',
      '@definedOr',
      '@concat',
      '@string',
      '@int',
      '@float',
      '@bool',
      '@len',
      '@map',
      '@filter',
      '@fold',
      '@any',
      '@all',
      '@none',
      '@sum',
      '@abs',
      '@ceil',
      '@floor',
      '@hash',
      '@now',
      '@list',
      '@dict',
      '@set',
      '@selector',
    ]) {
      expect(documented, op).toContain(op);
    }
  });

  it.each(rows.map((r) => [r.operator, r.example, r.result]))('%s: %s gives %s', (_op, example, result) => {
    const value = evaluateExpression(JSON.parse(example), document, {
      now: () => new Date('2026-01-01T00:00:00Z'),
    });
    expect(value).toEqual(JSON.parse(result));
  });
});
