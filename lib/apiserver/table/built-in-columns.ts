import type { KindRef } from '../patch/kind-ref.js';
import { isJsonObject } from '../patch/json-value.js';
import { humanDuration } from './human-duration.js';
import type { PrinterColumn } from './table.js';

type Obj = Record<string, unknown>;

function get(obj: unknown, path: string): unknown {
  let current = obj;
  for (const part of path.split('.'))
    current = isJsonObject(current) && Object.hasOwn(current, part) ? current[part] : undefined;
  return current;
}

function num(obj: unknown, path: string): number {
  const value = get(obj, path);
  return typeof value === 'number' ? value : 0;
}

function str(obj: unknown, path: string, fallback = '<none>'): string {
  const value = get(obj, path);
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function list(obj: unknown, path: string): unknown[] {
  const value = get(obj, path);
  return Array.isArray(value) ? value : [];
}

function count(obj: unknown, ...paths: string[]): number {
  return paths.reduce((sum, path) => {
    const value = get(obj, path);
    return sum + (isJsonObject(value) ? Object.keys(value).length : 0);
  }, 0);
}

function col(
  name: string,
  type: string,
  cell: (obj: Obj, now: Date) => unknown,
  priority = 0,
): PrinterColumn {
  return { name, type, jsonPath: '', priority, cell };
}

const AGE: PrinterColumn = {
  name: 'Age',
  type: 'string',
  jsonPath: '',
  cell: (obj, now) => {
    const created = Date.parse(str(obj, 'metadata.creationTimestamp', ''));
    return Number.isNaN(created) ? '<unknown>' : humanDuration(now.getTime() - created);
  },
};

const ratio = (ready: string, total: string) => (obj: Obj) => `${num(obj, ready)}/${num(obj, total)}`;

function podStatus(obj: Obj): string {
  if (get(obj, 'metadata.deletionTimestamp') !== undefined) return 'Terminating';
  for (const status of list(obj, 'status.containerStatuses')) {
    const reason = get(status, 'state.waiting.reason') ?? get(status, 'state.terminated.reason');
    if (typeof reason === 'string' && reason !== '') return reason;
  }
  return str(obj, 'status.reason', '') || str(obj, 'status.phase', 'Pending');
}

function servicePorts(obj: Obj): string {
  const ports = list(obj, 'spec.ports').map((p) => {
    const nodePort = num(p, 'nodePort');
    return `${num(p, 'port')}${nodePort ? `:${nodePort}` : ''}/${str(p, 'protocol', 'TCP')}`;
  });
  return ports.length > 0 ? ports.join(',') : '<none>';
}

function externalIp(obj: Obj): string {
  const ips = list(obj, 'spec.externalIPs').filter((ip): ip is string => typeof ip === 'string');
  const ingress = list(obj, 'status.loadBalancer.ingress').map(
    (i) => str(i, 'ip', '') || str(i, 'hostname', ''),
  );
  const all = [...ingress, ...ips].filter((ip) => ip !== '');
  if (all.length > 0) return all.join(',');
  return str(obj, 'spec.type', 'ClusterIP') === 'LoadBalancer' ? '<pending>' : '<none>';
}

function jobDuration(obj: Obj, now: Date): string {
  const start = Date.parse(str(obj, 'status.startTime', ''));
  if (Number.isNaN(start)) return '';
  const end = Date.parse(str(obj, 'status.completionTime', ''));
  return humanDuration((Number.isNaN(end) ? now.getTime() : end) - start);
}

function images(obj: Obj, field: 'name' | 'image'): string {
  return list(obj, 'spec.template.spec.containers')
    .map((c) => str(c, field, ''))
    .join(',');
}

const WIDE_WORKLOAD = [
  col('Containers', 'string', (o) => images(o, 'name'), 1),
  col('Images', 'string', (o) => images(o, 'image'), 1),
];

/** kube-apiserver's table columns (after Name) for built-in kinds, by "<group>/<Kind>". */
const COLUMNS: Record<string, PrinterColumn[]> = {
  '/ConfigMap': [col('Data', 'integer', (o) => count(o, 'data', 'binaryData')), AGE],
  '/Secret': [
    col('Type', 'string', (o) => str(o, 'type', '')),
    col('Data', 'integer', (o) => count(o, 'data')),
    AGE,
  ],
  '/Namespace': [col('Status', 'string', (o) => str(o, 'status.phase', '')), AGE],
  '/ServiceAccount': [col('Secrets', 'integer', (o) => list(o, 'secrets').length), AGE],
  '/Service': [
    col('Type', 'string', (o) => str(o, 'spec.type', 'ClusterIP')),
    col('Cluster-IP', 'string', (o) => str(o, 'spec.clusterIP')),
    col('External-IP', 'string', externalIp),
    col('Port(s)', 'string', servicePorts),
    AGE,
  ],
  '/Pod': [
    col('Ready', 'string', (o) => {
      const statuses = list(o, 'status.containerStatuses');
      return `${statuses.filter((s) => get(s, 'ready') === true).length}/${list(o, 'spec.containers').length}`;
    }),
    col('Status', 'string', podStatus),
    col('Restarts', 'string', (o) =>
      String(list(o, 'status.containerStatuses').reduce<number>((n, s) => n + num(s, 'restartCount'), 0)),
    ),
    AGE,
    col('IP', 'string', (o) => str(o, 'status.podIP'), 1),
    col('Node', 'string', (o) => str(o, 'spec.nodeName'), 1),
  ],
  'apps/Deployment': [
    col('Ready', 'string', ratio('status.readyReplicas', 'spec.replicas')),
    col('Up-to-date', 'integer', (o) => num(o, 'status.updatedReplicas')),
    col('Available', 'integer', (o) => num(o, 'status.availableReplicas')),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  'apps/StatefulSet': [
    col('Ready', 'string', ratio('status.readyReplicas', 'spec.replicas')),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  'apps/ReplicaSet': [
    col('Desired', 'integer', (o) => num(o, 'spec.replicas')),
    col('Current', 'integer', (o) => num(o, 'status.replicas')),
    col('Ready', 'integer', (o) => num(o, 'status.readyReplicas')),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  'apps/DaemonSet': [
    col('Desired', 'integer', (o) => num(o, 'status.desiredNumberScheduled')),
    col('Current', 'integer', (o) => num(o, 'status.currentNumberScheduled')),
    col('Ready', 'integer', (o) => num(o, 'status.numberReady')),
    col('Up-to-date', 'integer', (o) => num(o, 'status.updatedNumberScheduled')),
    col('Available', 'integer', (o) => num(o, 'status.numberAvailable')),
    AGE,
  ],
  'batch/Job': [
    col('Completions', 'string', (o) => {
      const completions = get(o, 'spec.completions');
      return `${num(o, 'status.succeeded')}/${typeof completions === 'number' ? completions : 1}`;
    }),
    col('Duration', 'string', jobDuration),
    AGE,
  ],
  'coordination.k8s.io/Lease': [col('Holder', 'string', (o) => str(o, 'spec.holderIdentity', '')), AGE],
  'apiextensions.k8s.io/CustomResourceDefinition': [
    col('Created At', 'date', (o) => str(o, 'metadata.creationTimestamp', '')),
  ],
};

/**
 * The columns kube-apiserver's built-in table printers serve for common kinds (after Name), with
 * computed cells such as Ready `1/2`; undefined for other kinds (renderTable then serves Age only).
 * Pass the result as renderTable's `columns` for built-in kinds.
 */
export function builtInPrinterColumns(kind: KindRef): PrinterColumn[] | undefined {
  const key = `${kind.group}/${kind.kind}`;
  return Object.hasOwn(COLUMNS, key) ? COLUMNS[key] : undefined;
}
