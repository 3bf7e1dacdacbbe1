import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkControllerSpec, viewCycles } from '../../lib/declarative/check-controller-spec.js';
import { DeclarativeSpecError } from '../../lib/declarative/declarative-spec-error.js';
import { loadOperatorSpec, parseOperatorSpec } from '../../lib/declarative/load-operator-spec.js';
import type { ControllerSpec } from '../../lib/declarative/operator-spec.js';

function problem(value: unknown): string {
  try {
    checkControllerSpec(value, 'controllers[0]');
  } catch (e) {
    expect(e).toBeInstanceOf(DeclarativeSpecError);
    return (e as Error).message;
  }
  return 'accepted';
}

const target = { kind: 'CmView' };

describe('checkControllerSpec', () => {
  it('D1: names what is missing, located', () => {
    expect(problem({ name: 'c', sources: [], target })).toBe(
      'controllers[0].sources: a controller needs at least one source ({kind, apiGroup?, version?})',
    );
    expect(problem({ name: '', sources: [{ kind: 'ConfigMap' }], target })).toBe(
      'controllers[0].name: a controller needs a non-empty name',
    );
    expect(problem({ name: 'c', sources: [{ kind: 'ConfigMap' }] })).toMatch(
      /^controllers\[0\]\.target: a controller needs a target/,
    );
    expect(problem({ name: 'c', sources: [{ kind: 'ConfigMap' }, { kind: 'Secret' }], target })).toBe(
      "controllers[0].pipeline: 2 sources (ConfigMap, Secret) need a '@join' condition",
    );
    expect(problem({ name: 'c', sources: [{ kind: 'ConfigMap' }], target: { kindd: 'X' } })).toBe(
      'controllers[0].target.kind: must be a kind name such as ConfigMap, got nothing (undefined) (unknown key kindd: misspelt?)',
    );
    expect(problem({ name: 'c', sources: [{ Kind: 'ConfigMap', group: '' }], target })).toMatch(
      /sources\[0\]\.kind: .*\(unknown keys Kind, group: misspelt\?\)$/,
    );
  });

  it('checks sources, predicates, targets and the pipeline', () => {
    expect(problem({ name: 'c', sources: [{ kind: 'config map' }], target })).toMatch(
      /sources\[0\]\.kind: must be a kind name/,
    );
    expect(
      problem({ name: 'c', sources: [{ kind: 'ConfigMap', predicate: { Not: { Sometimes: {} } } }], target }),
    ).toMatch(/sources\[0\]\.predicate\.Not\.Sometimes: unknown predicate 'Sometimes'/);
    expect(
      problem({ name: 'c', sources: [{ kind: 'ConfigMap' }], target: { kind: 'X', type: 'Merger' } }),
    ).toMatch(/target\.type: must be Updater or Patcher/);
    expect(
      problem({
        name: 'c',
        sources: [{ kind: 'ConfigMap' }],
        pipeline: { '@aggregate': [{ '@select': { '@nope': 1 } }] },
        target,
      }),
    ).toMatch(
      /^controllers\[0\]\.pipeline\['@aggregate'\]\[0\]\['@select'\]\['@nope'\]: unknown operator '@nope'/,
    );
    expect(
      problem({
        name: 'c',
        sources: [
          {
            kind: 'ConfigMap',
            labelSelector: { matchLabels: { app: 'x' } },
            predicate: { And: [{ GenerationChanged: {} }] },
          },
        ],
        target,
      }),
    ).toBe('accepted');
  });
});

describe('viewCycles', () => {
  const c = (name: string, from: string, to: string, group?: string): ControllerSpec => ({
    name,
    sources: [group === undefined ? { kind: from } : { kind: from, apiGroup: group }],
    target: { kind: to },
  });

  it('finds controllers on a cycle of view kinds, and only those', () => {
    const cycles = viewCycles([
      c('a', 'V1', 'V2'),
      c('b', 'V2', 'V3'),
      c('c', 'V3', 'V1'),
      c('d', 'ConfigMap', 'V1', ''),
      undefined,
    ]);
    expect([...cycles.keys()].sort()).toEqual([0, 1, 2]);
    expect(cycles.get(0)).toBe(
      'cyclic view dependency: a → b → c → a (each writes a view the next one reads); break the cycle',
    );
    expect(viewCycles([c('a', 'V1', 'V2'), c('b', 'V2', 'V3')]).size).toBe(0);
  });
});

describe('parseOperatorSpec / loadOperatorSpec', () => {
  const yaml = `controllers:
  - name: cm-view
    sources:
      - apiGroup: ""
        kind: ConfigMap
    pipeline:
      "@aggregate":
        - "@project":
            metadata:
              name: $.metadata.name
            spec:
              x: $.data.x
    target:
      kind: CmView
`;

  it('reads the bare spec and an Operator object holding it', () => {
    const spec = parseOperatorSpec(yaml);
    expect(spec.controllers[0]?.sources[0]).toEqual({ apiGroup: '', kind: 'ConfigMap' });
    const wrapped = parseOperatorSpec(
      `apiVersion: reconcilekit.io/v1alpha1\nkind: Operator\nmetadata: {name: x}\nspec:\n${yaml.replace(/^/gm, '  ')}`,
    );
    expect(wrapped).toEqual(spec);
  });

  it('names the file and the line of a syntax error, and the field of a shape error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rk-spec-'));
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'controllers:\n  - name: [\n');
    await expect(loadOperatorSpec(bad)).rejects.toThrow(new RegExp(`^${bad}: not valid YAML: .*line 3`));
    const empty = join(dir, 'empty.yaml');
    await writeFile(empty, 'controllers: []\n');
    await expect(loadOperatorSpec(empty)).rejects.toThrow(
      `${empty}: controllers: must be a list of 1–255 controllers, got a list of 0`,
    );
    const scalar = join(dir, 'scalar.yaml');
    await writeFile(scalar, 'just text\n');
    await expect(loadOperatorSpec(scalar)).rejects.toThrow(
      new RegExp(`^${scalar}: an operator spec is \\{controllers: \\[\\.\\.\\.\\]\\}, got`),
    );
    await expect(loadOperatorSpec(scalar)).rejects.toThrow(DeclarativeSpecError);
  });
});
