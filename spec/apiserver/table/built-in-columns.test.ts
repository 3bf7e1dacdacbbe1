/* eslint-disable @typescript-eslint/no-unsafe-return -- tests read untyped results */
import { describe, expect, it } from 'vitest';
import { builtInPrinterColumns } from '../../../lib/apiserver/table/built-in-columns.js';
import { renderTable } from '../../../lib/apiserver/table/table.js';

const now = new Date('2026-11-21T12:00:00Z');
const created = '2026-11-21T11:00:00Z';

function row(
  group: string,
  kind: string,
  obj: Record<string, unknown>,
): { names: string[]; cells: unknown[] } {
  const columns = builtInPrinterColumns({ group, version: 'v1', kind });
  const table = renderTable(
    [{ ...obj, metadata: { name: 'x', creationTimestamp: created, ...(obj.metadata as object) } }],
    columns,
    { now },
  ) as any;
  return { names: table.columnDefinitions.map((c: any) => c.name), cells: table.rows[0].cells };
}

describe('builtInPrinterColumns', () => {
  it.each([
    [
      '',
      'ConfigMap',
      { data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } },
      ['Name', 'Data', 'Age'],
      ['x', 3, '60m'],
    ],
    [
      '',
      'Secret',
      { type: 'Opaque', data: { a: 'MQ==' } },
      ['Name', 'Type', 'Data', 'Age'],
      ['x', 'Opaque', 1, '60m'],
    ],
    ['', 'Namespace', { status: { phase: 'Active' } }, ['Name', 'Status', 'Age'], ['x', 'Active', '60m']],
    [
      '',
      'Service',
      {
        spec: {
          type: 'NodePort',
          clusterIP: '10.0.0.1',
          ports: [
            { port: 80, nodePort: 30080, protocol: 'TCP' },
            { port: 53, protocol: 'UDP' },
          ],
        },
      },
      ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector'],
      ['x', 'NodePort', '10.0.0.1', '<none>', '80:30080/TCP,53/UDP', '60m', '<none>'],
    ],
    [
      '',
      'Pod',
      {
        spec: { containers: [{ name: 'a' }, { name: 'b' }], nodeName: 'n1' },
        status: {
          phase: 'Running',
          podIP: '10.1.0.5',
          containerStatuses: [
            { ready: true, restartCount: 2 },
            { ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } },
          ],
        },
      },
      ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates'],
      ['x', '1/2', 'CrashLoopBackOff', '3', '60m', '10.1.0.5', 'n1', '<none>', '<none>'],
    ],
    [
      'apps',
      'Deployment',
      {
        spec: {
          replicas: 3,
          selector: { matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'c', operator: 'Exists' }] },
          template: { spec: { containers: [{ name: 'web', image: 'nginx:1' }] } },
        },
        status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
      },
      ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector'],
      ['x', '2/3', 3, 2, '60m', 'web', 'nginx:1', 'a=1,b=2,c'],
    ],
    [
      'batch',
      'Job',
      { spec: { completions: 2 }, status: { succeeded: 1, startTime: '2026-11-21T11:30:00Z' } },
      ['Name', 'Completions', 'Duration', 'Age'],
      ['x', '1/2', '30m', '60m'],
    ],
    [
      'coordination.k8s.io',
      'Lease',
      { spec: { holderIdentity: 'pod-a' } },
      ['Name', 'Holder', 'Age'],
      ['x', 'pod-a', '60m'],
    ],
    ['apiextensions.k8s.io', 'CustomResourceDefinition', {}, ['Name', 'Created At'], ['x', created]],
  ])('%s/%s', (group, kind, obj, names, cells) => {
    expect(row(group, kind, obj)).toEqual({ names, cells });
  });

  it('shows a pod being deleted as Terminating and an empty service as <none>', () => {
    expect(
      row('', 'Pod', { metadata: { deletionTimestamp: created }, spec: { containers: [] } }).cells[2],
    ).toBe('Terminating');
    expect(row('', 'Service', { spec: {} }).cells.slice(1, 5)).toEqual([
      'ClusterIP',
      '<none>',
      '<none>',
      '<none>',
    ]);
  });

  it('has no columns for other kinds, so renderTable serves Name and Age', () => {
    expect(builtInPrinterColumns({ group: 'example.com', version: 'v1', kind: 'Widget' })).toBeUndefined();
    expect(row('', 'Endpoints', {}).names).toEqual(['Name', 'Age']);
  });

  it('marks wide-only columns with priority 1', () => {
    const columns = builtInPrinterColumns({ group: 'apps', version: 'v1', kind: 'Deployment' })!;
    expect(columns.filter((c) => c.priority === 1).map((c) => c.name)).toEqual([
      'Containers',
      'Images',
      'Selector',
    ]);
  });
});
