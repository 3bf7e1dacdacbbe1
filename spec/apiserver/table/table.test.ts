/* eslint-disable @typescript-eslint/no-unsafe-return -- selectors read untyped results */
import { describe, expect, it } from 'vitest';
import { humanDuration } from '../../../lib/apiserver/table/human-duration.js';
import { evaluateJsonPath } from '../../../lib/apiserver/table/json-path.js';
import { renderTable, type PrinterColumn } from '../../../lib/apiserver/table/table.js';

const now = new Date('2026-11-21T12:00:00Z');

const widget = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: {
    name: 'w1',
    namespace: 'default',
    creationTimestamp: '2026-11-21T11:55:00Z',
    labels: { 'app.kubernetes.io/name': 'demo' },
  },
  spec: { replicas: 3, ratio: 0.5, paused: false, tags: ['a', 'b'] },
  status: {
    conditions: [
      { type: 'Progressing', status: 'True' },
      { type: 'Ready', status: 'False', lastTransitionTime: '2026-11-19T12:00:00Z' },
    ],
  },
};

describe('humanDuration', () => {
  it.each([
    [-5_000, '<invalid>'],
    [-500, '0s'],
    [0, '0s'],
    [45_000, '45s'],
    [119_000, '119s'],
    [150_000, '2m30s'],
    [300_000, '5m'],
    [45 * 60_000, '45m'],
    [200 * 60_000, '3h20m'],
    [5 * 3_600_000, '5h'],
    [30 * 3_600_000, '30h'],
    [(2 * 24 + 5) * 3_600_000, '2d5h'],
    [3 * 86_400_000, '3d'],
    [100 * 86_400_000, '100d'],
    [(3 * 365 + 30) * 86_400_000, '3y30d'],
    [10 * 365 * 86_400_000, '10y'],
  ])('formats %d ms as %s', (ms, expected) => {
    expect(humanDuration(ms)).toBe(expected);
  });
});

describe('evaluateJsonPath', () => {
  it.each([
    ['.spec.replicas', [3]],
    ['{.spec.replicas}', [3]],
    ['.spec.tags[1]', ['b']],
    ['.spec.tags[-1]', ['b']],
    ['.spec.tags[*]', ['a', 'b']],
    ['.status.conditions[?(@.type=="Ready")].status', ['False']],
    [".status.conditions[?(@.type!='Ready')].type", ['Progressing']],
    ['.status.conditions[?(@.lastTransitionTime)].type', ['Ready']],
    [".metadata.labels['app.kubernetes.io/name']", ['demo']],
    ['.spec.missing.deeper', []],
    ['.status.conditions[5]', []],
  ])('%s', (path, expected) => {
    expect(evaluateJsonPath(widget, path)).toEqual(expected);
  });

  it('rejects an unsupported expression', () => {
    expect(() => evaluateJsonPath(widget, 'spec')).toThrow(/unsupported JSONPath/);
  });
});

describe('renderTable', () => {
  it('renders Name and Age by default, with PartialObjectMetadata rows', () => {
    const table: any = renderTable([widget], undefined, { now, listMeta: { resourceVersion: '42' } });
    expect(table).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '42' },
    });
    expect(table.columnDefinitions.map((c: any) => [c.name, c.type, c.format])).toEqual([
      ['Name', 'string', 'name'],
      ['Age', 'date', ''],
    ]);
    expect(table.rows).toEqual([
      {
        cells: ['w1', '5m'],
        object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: widget.metadata },
      },
    ]);
  });

  it('renders declared printer columns with typed cells', () => {
    const columns: PrinterColumn[] = [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
      { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      {
        name: 'Since',
        type: 'date',
        jsonPath: '.status.conditions[?(@.type=="Ready")].lastTransitionTime',
        priority: 1,
      },
      { name: 'Tags', type: 'string', jsonPath: '.spec.tags[*]' },
      { name: 'List', type: 'string', jsonPath: '.spec.tags' },
      { name: 'Map', type: 'string', jsonPath: '.metadata.labels' },
      { name: 'Truncated', type: 'integer', jsonPath: '.spec.ratio' },
      { name: 'NotADate', type: 'date', jsonPath: '.spec.replicas' },
      { name: 'Missing', type: 'string', jsonPath: '.status.nothing' },
      { name: 'WrongType', type: 'integer', jsonPath: '.spec.paused' },
    ];
    const table: any = renderTable([widget], columns, { now, includeObject: 'None' });
    expect(table.columnDefinitions.map((c: any) => c.name)).toEqual(['Name', ...columns.map((c) => c.name)]);
    expect(table.columnDefinitions[5].priority).toBe(1);
    expect(table.rows).toEqual([
      {
        cells: [
          'w1',
          3,
          0.5,
          false,
          'False',
          '2d',
          'a',
          '[a b]',
          'map[app.kubernetes.io/name:demo]',
          0,
          null,
          null,
          null,
        ],
      },
    ]);
  });

  it('includes the full object on request, as a copy', () => {
    const table: any = renderTable([widget], [], { now, includeObject: 'Object' });
    expect(table.rows[0].object).toEqual(widget);
    table.rows[0].object.spec.replicas = 9;
    expect(widget.spec.replicas).toBe(3);
  });

  it('renders an empty list with its column definitions', () => {
    const table: any = renderTable([], undefined, { now });
    expect(table.rows).toEqual([]);
    expect(table.columnDefinitions).toHaveLength(2);
  });

  it('renders a bad jsonPath or a bad date without failing', () => {
    const table: any = renderTable([{ metadata: { name: 'x', creationTimestamp: 'garbage' } }], undefined, {
      now,
    });
    expect(table.rows[0].cells).toEqual(['x', '<invalid>']);
    const bad: any = renderTable([widget], [{ name: 'Bad', type: 'string', jsonPath: 'spec[' }], { now });
    expect(bad.rows[0].cells).toEqual(['w1', null]);
  });
});
