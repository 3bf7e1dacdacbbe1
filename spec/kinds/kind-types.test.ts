// Type-level checks of kinds, with the TypeScript compiler on a fixture file (spec/kinds/fixtures/types):
// a wrong field in a typed create fails to compile, status is typed, apply configurations are partial.
// The fixture is compiled against the build (reconcilekit resolves to dist/ through package exports).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ApplyConfigurationOf, ObjectOf, SpecOf, StatusOf } from 'reconcilekit/kinds';
import { Gadget } from './fixtures/gadget-kind.js';

const FIXTURE = resolve('spec/kinds/fixtures/types/typed-usage.ts');

function compile(): { line: number; text: string }[] {
  const config = ts.readConfigFile(resolve('tsconfig.json'), (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, resolve('.'));
  const program = ts.createProgram([FIXTURE], { ...parsed.options, noEmit: true });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === FIXTURE)
    .map((d) => ({
      line: d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1,
      text: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }));
}

describe('kind types (tsc on a fixture)', () => {
  const lines = readFileSync(FIXTURE, 'utf8').split('\n');
  const expected = lines.flatMap((l, i) => {
    const m = /\/\/ expect-error: (.*)$/.exec(l);
    return m ? [{ line: i + 2, text: m[1]! }] : [];
  });
  const diagnostics = compile();

  it('the fixture marks the mistakes it makes', () => {
    expect(expected.length).toBeGreaterThanOrEqual(9);
  });

  it('every marked line fails to compile with the expected message, and only those', () => {
    const unexpected = diagnostics.filter((d) => !expected.some((e) => e.line === d.line));
    expect(unexpected).toEqual([]);
    for (const e of expected) {
      const found = diagnostics.filter((d) => d.line === e.line);
      expect(found.map((d) => d.text).join('\n'), `line ${e.line}`).toContain(e.text);
    }
  });
}, 120_000);

describe('kind types (expectTypeOf)', () => {
  it('spec and status come from the schemas, with no second declaration', () => {
    expectTypeOf<SpecOf<typeof Gadget>['maxReplicas']>().toEqualTypeOf<number>();
    expectTypeOf<SpecOf<typeof Gadget>['color']>().toEqualTypeOf<'red' | 'green' | 'blue' | undefined>();
    expectTypeOf<SpecOf<typeof Gadget>['target']>().toEqualTypeOf<number | string | undefined>();
    expectTypeOf<NonNullable<StatusOf<typeof Gadget>['conditions']>[number]['status']>().toEqualTypeOf<
      'True' | 'False' | 'Unknown'
    >();
    expectTypeOf<ObjectOf<typeof Gadget>['status']>().toEqualTypeOf<StatusOf<typeof Gadget> | undefined>();
  });

  it('apply configurations make every field optional except the name', () => {
    expectTypeOf<{ metadata: { name: 'x' } }>().toExtend<ApplyConfigurationOf<typeof Gadget>>();
    expectTypeOf<{ metadata: { name: 'x' }; spec: { ports: { port: 1 }[] } }>().toExtend<
      ApplyConfigurationOf<typeof Gadget>
    >();
    expectTypeOf<{ metadata: object }>().not.toExtend<ApplyConfigurationOf<typeof Gadget>>();
  });
});
